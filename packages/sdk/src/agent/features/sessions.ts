import type {
  NewSessionRequest,
  NewSessionResponse,
  ReplayFrom,
  ResumeSessionRequest,
  ResumeSessionResponse,
  SystemPrompt,
} from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { checkMcpServers, mcpTransportsOf } from '../../mcp-over-acp/declarations.js';
import { requireAbsolute, requireAbsoluteDirectories } from '../sessions/absolute-paths.js';
import type { AgentSession } from '../agent-session.js';
import { replayFromLog } from '../replay/log-replay.js';
import type { MethodContext, SessionSetup } from '../method-options.js';
import { replayCursorOf } from '../replay/replay-cursor.js';
import { sendReplay } from '../replay/send-replay.js';
import { discoverChildren } from '../sessions/subagents.js';
import { checkSystemPrompt } from '../sessions/system-prompt.js';
import { DEFAULT_LIST_PAGE_SIZE, listSessionPage } from '../sessions/session-directory.js';
import { type SessionSettings, settingsOf, updateSettings } from '../sessions/session-settings.js';
import {
  type AgentHost,
  type ConnectionHost,
  methodContext,
  type MethodFeature,
  runHandler,
} from '../connection/serving.js';
import { closeEverywhere, closeHere } from './work-requests.js';

/** The settings a setup and the request's directories give a session. */
function settingsFrom(
  setup: SessionSetup | undefined,
  additionalDirectories: readonly string[] | undefined,
  systemPrompt?: SystemPrompt,
): SessionSettings {
  return {
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    ...(setup?.configOptions === undefined ? {} : { configOptions: setup.configOptions }),
    ...(setup?.availableCommands === undefined ? {} : { availableCommands: setup.availableCommands }),
    ...(additionalDirectories === undefined ? {} : { additionalDirectories }),
  };
}

/** The `configOptions` / `availableCommands` part of a new or resume response. */
function responseSettings(
  settings: SessionSettings,
): Pick<NewSessionResponse, 'configOptions' | 'availableCommands'> {
  return {
    ...(settings.configOptions === undefined ? {} : { configOptions: [...settings.configOptions] }),
    ...(settings.availableCommands === undefined
      ? {}
      : { availableCommands: [...settings.availableCommands] }),
  };
}

/** The gated MCP transports the agent takes: those it advertises, `acp` when it connects them. */
function agentTransports(agent: AgentHost) {
  return { ...mcpTransportsOf(agent.capabilities.session?.mcp), acp: agent.mcp !== undefined };
}

/** `session/new`: asks the application (which may refuse), then creates the session with its settings. */
export async function newSession(
  agent: AgentHost,
  request: NewSessionRequest,
  context: MethodContext,
): Promise<{ session: AgentSession; response: NewSessionResponse }> {
  requireAbsolute(request.cwd);
  requireAbsoluteDirectories(request.additionalDirectories);
  const systemPrompt = checkSystemPrompt(agent.capabilities, request.systemPrompt);
  checkMcpServers(request.mcpServers, agentTransports(agent));
  const sessionId = agent.newSessionId();
  const onNew = agent.options.onNewSession;
  const setup = onNew
    ? await runHandler(agent, 'onNewSession', sessionId, () => onNew(request, { ...context, sessionId }))
    : undefined;
  const settings = settingsFrom(setup, request.additionalDirectories, systemPrompt);
  const session = await agent.createSession(request.cwd, {
    sessionId,
    settings,
    ...(setup?.title === undefined ? {} : { title: setup.title }),
  });
  agent.mcp?.declare(session.id, context.client, request.mcpServers);
  return { session, response: { sessionId: session.id, ...responseSettings(settings) } };
}

/**
 * `session/resume` before the attach and replay: asks the application (which may refuse), keeps
 * what it and the request change, and returns the response's settings part.
 */
async function prepareResume(
  agent: AgentHost,
  session: AgentSession,
  request: ResumeSessionRequest,
  context: MethodContext,
): Promise<Pick<ResumeSessionResponse, 'configOptions' | 'availableCommands'>> {
  requireAbsoluteDirectories(request.additionalDirectories);
  // Given: replaces the stored one; omitted or null: the stored one stays.
  const systemPrompt = checkSystemPrompt(agent.capabilities, request.systemPrompt);
  checkMcpServers(request.mcpServers, agentTransports(agent));
  const onResume = agent.options.onResumeSession;
  const setup = onResume
    ? await runHandler(agent, 'onResumeSession', session.id, () => onResume(request, { ...context, session }))
    : undefined;
  const changes = settingsFrom(setup, request.additionalDirectories, systemPrompt);
  const log = session.log;
  const settings =
    Object.keys(changes).length > 0
      ? await updateSettings(log, session.id, () => changes)
      : settingsOf(await log.getSession(session.id));
  if (setup?.title !== undefined) await log.updateSession(session.id, { title: setup.title });
  return responseSettings(settings);
}

/**
 * Attaches the client at the session's position N (entries after N wait for it), replays the
 * retained log up to N if asked, reports the activity as of N, then lets the entries after N flow.
 * `$/cancel_request` stops the replay (-32800) and detaches the client — unless it was attached
 * before this resume, which then goes on receiving the live entries.
 */
async function attachResumed(
  agent: AgentHost,
  connection: ConnectionHost,
  session: AgentSession,
  cursor: ReplayFrom | undefined,
  signal: AbortSignal,
): Promise<void> {
  const { peer } = connection;
  await session.following();
  // A client already following the session (through session/new, a prompt or an earlier resume)
  // keeps following it if this replay fails: its prompts' receipts wait on their reports.
  const wasAttached = session.clients.isAttached(peer);
  connection.attach(session, true);
  const upto = session.position;
  // The state as of `upto`: the entries after it reach this client after the replay.
  const activity = session.reportedActivity;
  const background = session.reportedBackground;
  try {
    if (cursor !== undefined) {
      const style = agent.options.replay ?? 'full';
      const limit = peer.maxMessageBytes ?? Number.POSITIVE_INFINITY;
      await sendReplay(session, peer, replayFromLog(agent.log, session.id, upto, style, limit, signal));
      signal.throwIfAborted();
    }
    // Current-state synchronisation: the resume response alone does not mean idle.
    await session.sendStateTo(peer, activity, background);
    // Subagents (unstable): the client follows them with no resume of its own. Their histories
    // follow this one (whose replay carried their announcements), each with its current state.
    await discoverChildren(agent.log, session, (id) => agent.session(id));
    for (const child of session.family.children.values()) {
      await attachResumed(agent, connection, child, cursor, signal);
    }
  } catch (error) {
    if (wasAttached) await session.clients.release(peer);
    else session.clients.detach(peer);
    if (signal.aborted) throw new RpcError(ErrorCodes.RequestCancelled, 'The replay was cancelled.');
    throw error;
  }
  await session.clients.release(peer);
}

/**
 * The session directory's methods: `session/new`, `session/resume`, `session/list`,
 * `session/close` and, when advertised, `session/delete` (otherwise the gate answers it -32601
 * like any method the agent does not serve).
 */
export const sessions: MethodFeature = (agent) => {
  const { options } = agent;
  return {
    'session/new': async (params, request, connection) => {
      const { session, response } = await newSession(agent, params, methodContext(connection, request));
      await options.ownership?.created(session.id);
      connection.attach(session);
      const started = options.onSessionStarted;
      // After the response was written (it is written as soon as this handler resolves).
      if (started) {
        setImmediate(() => {
          void runHandler(agent, 'onSessionStarted', session.id, () => started(session)).catch(
            () => undefined,
          );
        });
      }
      return response;
    },
    'session/resume': async (params, request, connection) => {
      requireAbsolute(params.cwd);
      const session = await agent.require(params.sessionId);
      const settings = await prepareResume(agent, session, params, methodContext(connection, request));
      session.cwd = params.cwd;
      const cursor = replayCursorOf(params);
      await attachResumed(agent, connection, session, cursor, request.signal);
      agent.mcp?.declare(session.id, connection.peer, params.mcpServers);
      return settings;
    },
    'session/list': async (params, request, connection) => {
      if (typeof params.cwd === 'string') requireAbsolute(params.cwd);
      const builtIn = (p: typeof params) =>
        listSessionPage(
          agent.log,
          p,
          options.listPageSize ?? DEFAULT_LIST_PAGE_SIZE,
          Boolean(agent.capabilities.session?.archive),
        );
      const list = options.listSessions;
      if (!list) return builtIn(params);
      return runHandler(agent, 'listSessions', undefined, () =>
        list(params, { ...methodContext(connection, request), builtIn }),
      );
    },
    'session/close': async (params, request, connection) => {
      await closeEverywhere(agent, params.sessionId, methodContext(connection, request));
      return {};
    },
    ...(agent.capabilities.session?.delete && {
      'session/delete': async (params, request, connection) => {
        const context = methodContext(connection, request);
        // Deleting a session that never existed, or is already deleted, succeeds silently
        // (upstream's v2 draft, session-delete: SHOULD); the application's hook is not called.
        if (!(await agent.log.getSession(params.sessionId))) return {};
        const onDelete = options.onDeleteSession;
        if (onDelete) {
          await runHandler(agent, 'onDeleteSession', params.sessionId, () =>
            onDelete(params.sessionId, context),
          );
        }
        await closeHere(agent, params.sessionId, context);
        // Deleted meanwhile (by another connection or replica): the session is gone all the same.
        await agent.deleteSession(params.sessionId);
        return {};
      },
    }),
  };
};
