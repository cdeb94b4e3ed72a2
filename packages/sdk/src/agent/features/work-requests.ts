import type { SessionId } from '@acp-kit/schema';
import { RpcError } from '../../rpc/errors.js';
import type { MethodContext } from '../method-options.js';
import { sessionNotFound } from '../sessions/session-directory.js';
import type { ForwardedRequest, SessionOwnership } from '../sessions/session-ownership.js';
import { type AgentHost, methodContext, type MethodFeature, runHandler } from '../connection/serving.js';
import { cancelHere } from './prompts.js';

/**
 * Has the session's owner carry out a request about its work, when another replica owns it (see
 * {@link SessionOwnership.forward}): true once the owner did, throws the error it answered with;
 * false when the request is this replica's to carry out (no ownership, or the session is owned here).
 */
export async function atOwner(
  agent: AgentHost,
  sessionId: SessionId,
  request: ForwardedRequest,
): Promise<boolean> {
  const ownership = agent.options.ownership;
  const forward = ownership?.forward;
  if (forward === undefined) return false;
  if (!(await agent.log.getSession(sessionId))) throw sessionNotFound(sessionId);
  const answer = await forward.call(ownership, sessionId, request);
  if (answer === undefined) return false;
  if ('error' in answer) throw RpcError.fromObject(answer.error);
  return true;
}

/**
 * Closes a session here. A live one is first cancelled as `session/cancel` cancels it (upstream's
 * v2 draft, session-setup, "Closing Active Sessions": MUST): a running or asked turn ends with
 * `idle`, stop reason `cancelled`, and every attached client is handed that `idle` before the
 * close goes on (`AgentSession.settledForClose`). Then `onCloseSession` is called (the
 * application frees what it holds), its clients are detached, and the agent lets it go; prompts
 * not inserted by then are answered -32800. The history stays. What `session/close` and
 * `session/delete` both do to the live session.
 */
export async function closeHere(
  agent: AgentHost,
  sessionId: SessionId,
  context: MethodContext,
): Promise<void> {
  const live = agent.sessions.get(sessionId);
  if (live) {
    // A failing onCancel was reported by cancelHere; the close goes on.
    await cancelHere(agent, sessionId).catch(() => undefined);
    await live.settledForClose(context.signal);
  }
  const onClose = agent.options.onCloseSession;
  if (live && onClose) {
    await runHandler(agent, 'onCloseSession', live.id, () => onClose(live, context));
  }
  await agent.closeSession(sessionId);
}

/**
 * `session/close` for a session any replica may run: -32002 when the log does not know it; the
 * owner closes it (its turn is aborted there), then it is closed here. What `session/close` and
 * `session/archive` both do.
 */
export async function closeEverywhere(
  agent: AgentHost,
  sessionId: SessionId,
  context: MethodContext,
): Promise<void> {
  if (!(await agent.log.getSession(sessionId))) throw sessionNotFound(sessionId);
  await atOwner(agent, sessionId, { method: 'session/close' });
  await runWorkRequest(agent, sessionId, { method: 'session/close' }, context);
}

/**
 * Carries out a request about a session's work here, where its tool calls, terminals and turn run:
 * a cancel aborts the tool call's or terminal's signal; `session/close` is {@link closeHere}.
 * Also what a replica runs for a request another replica forwarded to it.
 */
export async function runWorkRequest(
  agent: AgentHost,
  sessionId: SessionId,
  request: ForwardedRequest,
  context: MethodContext,
): Promise<void> {
  if (request.method === 'session/close') return closeHere(agent, sessionId, context);
  const session = await agent.session(sessionId);
  if (!session) throw sessionNotFound(sessionId);
  if (request.method === 'tool_call/cancel') session.work.cancelToolCall(request.toolCallId);
  else session.work.cancelTerminal(request.terminalId);
}

/** `tool_call/cancel` and `terminal/cancel`: run by the session's owner (here, or forwarded to it). */
export const workRequests: MethodFeature = (agent) => {
  const run = async (
    sessionId: SessionId,
    work: ForwardedRequest,
    context: MethodContext,
  ): Promise<Record<string, never>> => {
    if (!(await atOwner(agent, sessionId, work))) await runWorkRequest(agent, sessionId, work, context);
    return {};
  };
  return {
    'tool_call/cancel': (params, request, connection) =>
      run(
        params.sessionId,
        { method: 'tool_call/cancel', toolCallId: params.toolCallId },
        methodContext(connection, request),
      ),
    'terminal/cancel': (params, request, connection) =>
      run(
        params.sessionId,
        { method: 'terminal/cancel', terminalId: params.terminalId },
        methodContext(connection, request),
      ),
  };
};
