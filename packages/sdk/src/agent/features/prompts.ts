import type { MessageId, PromptResponse, SessionId } from '@acp-kit/schema';
import type { RequestContext } from '../../rpc/handlers.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import type { AgentSession } from '../agent-session.js';
import type { ClientPeer } from '../connection/client-peer.js';
import { forwardedPromptPeer } from '../connection/forwarded-prompt-peer.js';
import { historyUnavailable, promptFailure } from '../turns/history-unavailable.js';
import { PendingPrompt } from '../turns/pending-prompt.js';
import type { ForwardedPrompt, ForwardedReceipt } from '../sessions/session-ownership.js';
import type { AgentHost, MethodFeature } from '../connection/serving.js';

/** When a prompt arrived at its session, and how it tells the session it was settled. */
type Arrival = { arrival: number; settled: () => void };

const noop = (): void => undefined;

/**
 * Ends the session's turn after `onPrompt` threw or rejected once its prompt was inserted, so
 * clients are not left watching a turn that never ends. Only a turn still open is ended: a handler
 * that already reported `idle()` (even one still being written: the activity is set before the
 * write) gets nothing more. The turn may be shared with other prompts inserted into it; it ends all
 * the same, since the agent's code running it failed. Clients get -32603 with a fixed message,
 * never the error's own text (which goes to `onHandlerError` only). A turn whose signal was
 * aborted by `session/cancel` ends `cancelled` instead, without an error.
 */
function endTurnAfterFailure(session: AgentSession): void {
  if (session.activity === 'idle' || session.closed.aborted) return;
  // A handler that throws once its turn was cancelled (a library's AbortError, typically) ends the
  // turn as cancelled, not failed: upstream's v2 draft makes the agent report `cancelled` then.
  if (session.signal.aborted) {
    session.idle('cancelled').catch(noop);
    return;
  }
  session
    .idle('error', undefined, {
      code: ErrorCodes.InternalError,
      message: "Internal error: the agent's prompt handler failed.",
    })
    // A failed write is the log's to report; the idle still closes the turn here.
    .catch(noop);
}

/**
 * Hands a prompt to `onPrompt` as a {@link PendingPrompt}: answered with its `messageId` once
 * inserted, -32800 when its request or its session is cancelled or closed first, -32603 when the
 * handler throws before settling it (the error goes to `onHandlerError`). When it throws after the
 * prompt was inserted and the session's turn is still open, the turn ends with `idle('error')`.
 * With `inserting`, the message's ID is recorded before the append (a prompt forwarded by another
 * replica), so a takeover can tell the outcome.
 */
function runPrompt(
  agent: AgentHost,
  session: AgentSession,
  peer: ClientPeer,
  content: PendingPrompt['content'],
  context: Pick<RequestContext, 'signal'>,
  arrived: Arrival,
  inserting?: (messageId: MessageId) => Promise<void>,
): Promise<PromptResponse> {
  const prompt = new PendingPrompt(session.id, content, context.signal, {
    insertUserMessage: async (inserted, options) => {
      const insertContext = { peer, arrival: arrived.arrival };
      if (inserting === undefined) return session.insertUserMessage(inserted, options, insertContext);
      const messageId = options.messageId ?? (await session.reserveMessageId());
      await inserting(messageId);
      return session.insertUserMessage(inserted, { ...options, messageId }, insertContext);
    },
  });
  prompt.response.then(arrived.settled, arrived.settled);
  const rejectIfPending = (error: RpcError): void => {
    if (prompt.state === 'pending') prompt.reject(error);
  };
  // Closing the session answers its prompts that were not inserted yet.
  const onClosed = (): void =>
    rejectIfPending(
      new RpcError(ErrorCodes.RequestCancelled, 'The session was closed before the prompt was inserted.'),
    );
  if (session.closed.aborted) onClosed();
  else {
    session.closed.addEventListener('abort', onClosed, { once: true });
    const forget = (): void => session.closed.removeEventListener('abort', onClosed);
    prompt.response.then(forget, forget);
  }
  context.signal.addEventListener(
    'abort',
    () =>
      rejectIfPending(
        new RpcError(ErrorCodes.RequestCancelled, 'The prompt was cancelled before insertion.'),
      ),
    { once: true },
  );
  const failed = (error: unknown): void => {
    const before = prompt.state;
    rejectIfPending(promptFailure(error));
    agent.handlerFailed(error, { handler: 'onPrompt', sessionId: session.id });
    // Failed after inserting: the client has its receipt, so the turn is ended here instead.
    if (before === 'inserted') endTurnAfterFailure(session);
    else if (before === 'inserting') prompt.response.then(() => endTurnAfterFailure(session), noop);
  };
  try {
    const handled = agent.options.onPrompt(prompt, { session, client: peer });
    if (handled instanceof Promise) handled.catch(failed);
  } catch (error) {
    failed(error);
  }
  return prompt.response;
}

/** Runs a prompt another replica forwarded to this one, the session's owner. */
export async function runForwardedPrompt(
  agent: AgentHost,
  forwarded: ForwardedPrompt,
): Promise<ForwardedReceipt> {
  const session = await agent.require(forwarded.sessionId);
  const arrived = session.promptArrived();
  if (forwarded.cancelled) session.cancel();
  try {
    const peer = forwardedPromptPeer(session.id);
    const { messageId } = await runPrompt(
      agent,
      session,
      peer,
      forwarded.content,
      { signal: forwarded.signal },
      arrived,
      (id) => forwarded.inserting(id),
    );
    return { messageId, position: session.position };
  } finally {
    arrived.settled();
  }
}

/** `session/cancel` for a session run here: aborts its work, then calls `onCancel`. */
export async function cancelHere(agent: AgentHost, sessionId: SessionId): Promise<void> {
  const session = agent.sessions.get(sessionId);
  if (!session) return;
  session.cancel();
  try {
    await agent.options.onCancel?.(session);
  } catch (error) {
    agent.handlerFailed(error, { handler: 'onCancel', sessionId: session.id });
    throw error;
  }
}

/**
 * The prompt lifecycle: `session/prompt` (answered once inserted; on a replica that does not own
 * the session, with the owner's receipt once this client was handed the message's report) and
 * `session/cancel` (applied to the work pending or running when it arrives).
 */
export const prompts: MethodFeature = (agent) => ({
  'session/prompt': async (params, context, connection) => {
    const { peer } = connection;
    // Counted before any await, so a session/cancel right behind it applies to it.
    const arrived = agent.sessions.get(params.sessionId)?.promptArrived();
    try {
      const session = await agent.require(params.sessionId);
      connection.attach(session);
      const route = await agent.options.ownership
        ?.route(session.id, params.prompt, context.signal)
        .catch((error: unknown) => {
          // The database is unreachable or read-only (a failover): a retryable answer, not a hang.
          throw historyUnavailable(error) ? promptFailure(error) : error;
        });
      if (route !== undefined && 'error' in route) throw RpcError.fromObject(route.error);
      if (route?.to === 'owner') {
        // Inserted by the owner: answered once this client was handed the message's report.
        await session.reportedTo(peer, route.receipt.position);
        return { messageId: route.receipt.messageId };
      }
      return await runPrompt(
        agent,
        session,
        peer,
        params.prompt,
        context,
        arrived ?? session.promptArrived(),
      );
    } finally {
      arrived?.settled();
    }
  },
  'session/cancel': async (params) => {
    const ownership = agent.options.ownership;
    if (ownership === undefined) return cancelHere(agent, params.sessionId);
    // Applied here at once (to prompts still waiting here), and run by the owner.
    agent.sessions.get(params.sessionId)?.cancel();
    if (await ownership.cancel(params.sessionId)) return;
    return cancelHere(agent, params.sessionId);
  },
});
