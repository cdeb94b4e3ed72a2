import type {
  NewSessionRequest,
  NewSessionResponse,
  ResumeSessionRequest,
  ResumeSessionResponse,
  SessionId,
} from '@acp-kit/schema';
import { isAbsolute } from 'node:path';
import type { RequestContext } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { Agent, AgentOptions, HandlerErrorContext } from './agent.js';
import type { AgentSession } from './agent-session.js';
import type { ClientPeer } from './client-peer.js';
import { applyConfigOption } from './config-options.js';
import type { ConnectionState } from './connection-state.js';
import type { MethodGate } from './method-gate.js';
import type { MethodContext, SessionSetup } from './method-options.js';
import { DEFAULT_LIST_PAGE_SIZE, listSessionPage, sessionNotFound } from './session-directory.js';
import { type SessionSettings, settingsOf, updateSettings } from './session-settings.js';
import type { ForwardedRequest, SessionOwnership } from './session-ownership.js';
import { wire } from './wire-errors.js';

/** What the method handlers of one connection need from the agent serving it. */
export interface MethodHost {
  readonly agent: Agent;
  readonly options: AgentOptions;
  readonly state: ConnectionState;
  readonly peer: ClientPeer;
  /** Hands an application handler's error to `onHandlerError`. */
  handlerFailed(error: unknown, context: HandlerErrorContext): void;
  /** Detaches the connection from every session it follows (at `auth/logout`). */
  detachAll(): void;
}

/**
 * Runs an application handler: an `RpcError` it throws is the answer (a refusal); anything else
 * is reported to `onHandlerError` and answered -32603 without details.
 */
export async function runHandler<T>(
  host: Pick<MethodHost, 'handlerFailed'>,
  handler: HandlerErrorContext['handler'],
  sessionId: SessionId | undefined,
  run: () => T | Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RpcError) throw error;
    host.handlerFailed(error, { handler, sessionId: sessionId ?? '' });
    throw new RpcError(ErrorCodes.InternalError, 'Internal error');
  }
}

/**
 * Refuses a relative working directory (`session/new`, `session/resume`, the `session/list`
 * filter): ACP requires absolute paths.
 */
export function requireAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) {
    throw new RpcError(ErrorCodes.InvalidParams, `cwd must be an absolute path, got ${JSON.stringify(cwd)}`, {
      pointer: '/params/cwd',
      expected: 'an absolute path',
    });
  }
}

/** Refuses directories that are not absolute paths, with the pointer of the first one. */
export function requireAbsoluteDirectories(directories: readonly string[] | undefined): void {
  for (const [i, directory] of (directories ?? []).entries()) {
    if (!isAbsolute(directory)) {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `additionalDirectories must be absolute paths, got ${JSON.stringify(directory)}`,
        { pointer: `/params/additionalDirectories/${i}`, expected: 'an absolute path' },
      );
    }
  }
}

/** The settings a setup and the request's directories give a session. */
function settingsFrom(
  setup: SessionSetup | undefined,
  additionalDirectories: readonly string[] | undefined,
): SessionSettings {
  return {
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

/**
 * `session/new` after the gate and the cwd check: asks the application (which may refuse), then
 * creates the session with its settings.
 */
export async function newSession(
  host: MethodHost,
  request: NewSessionRequest,
  context: RequestContext,
): Promise<{ session: AgentSession; response: NewSessionResponse }> {
  requireAbsoluteDirectories(request.additionalDirectories);
  const sessionId = host.agent.newSessionId();
  const setup = host.options.onNewSession
    ? await runHandler(host, 'onNewSession', sessionId, () =>
        host.options.onNewSession!(request, { client: host.peer, signal: context.signal, sessionId }),
      )
    : undefined;
  const settings = settingsFrom(setup, request.additionalDirectories);
  const session = await host.agent.createSession(request.cwd, {
    sessionId,
    settings,
    ...(setup?.title === undefined ? {} : { title: setup.title }),
  });
  return { session, response: { sessionId: session.id, ...responseSettings(settings) } };
}

/**
 * `session/resume` before the attach and replay: asks the application (which may refuse), keeps
 * what it and the request change, and returns the response's settings part.
 */
export async function prepareResume(
  host: MethodHost,
  session: AgentSession,
  request: ResumeSessionRequest,
  context: RequestContext,
): Promise<Pick<ResumeSessionResponse, 'configOptions' | 'availableCommands'>> {
  requireAbsoluteDirectories(request.additionalDirectories);
  const setup = host.options.onResumeSession
    ? await runHandler(host, 'onResumeSession', session.id, () =>
        host.options.onResumeSession!(request, { client: host.peer, signal: context.signal, session }),
      )
    : undefined;
  const changes = settingsFrom(setup, request.additionalDirectories);
  const log = session.log;
  const settings =
    Object.keys(changes).length > 0
      ? await updateSettings(log, session.id, () => changes)
      : settingsOf(await log.getSession(session.id));
  if (setup?.title !== undefined) await log.updateSession(session.id, { title: setup.title });
  return responseSettings(settings);
}

/**
 * Has the session's owner carry out a request about its work, when another replica owns it (see
 * {@link SessionOwnership.forward}): true once the owner did, throws the error it answered with;
 * false when the request is this replica's to carry out (no ownership, or the session is owned here).
 */
async function atOwner(
  host: Pick<MethodHost, 'agent' | 'options'>,
  sessionId: SessionId,
  request: ForwardedRequest,
): Promise<boolean> {
  const forward = host.options.ownership?.forward;
  if (forward === undefined) return false;
  if (!(await host.agent.log.getSession(sessionId))) throw sessionNotFound(sessionId);
  const answer = await forward.call(host.options.ownership, sessionId, request);
  if (answer === undefined) return false;
  if ('error' in answer) throw RpcError.fromObject(answer.error);
  return true;
}

/**
 * Carries out a request about a session's work here, where its tool calls, terminals and turn run:
 * a cancel aborts the tool call's or terminal's signal; `session/close` cancels the work, calls
 * `onCloseSession` and closes the live session (its clients are detached; the history stays).
 * Also what a replica runs for a request another replica forwarded to it.
 */
export async function runWorkRequest(
  host: Pick<MethodHost, 'agent' | 'options' | 'handlerFailed'>,
  sessionId: SessionId,
  request: ForwardedRequest,
  context: MethodContext,
): Promise<void> {
  const { agent, options } = host;
  if (request.method === 'session/close') {
    const live = agent.sessions.get(sessionId);
    if (live && options.onCloseSession) {
      live.cancel();
      await runHandler(host, 'onCloseSession', live.id, () => options.onCloseSession!(live, context));
    }
    await agent.closeSession(sessionId);
    return;
  }
  const session = await agent.session(sessionId);
  if (!session) throw sessionNotFound(sessionId);
  if (request.method === 'tool_call/cancel') session.work.cancelToolCall(request.toolCallId);
  else session.work.cancelTerminal(request.terminalId);
}

/**
 * Registers `session/list`, `session/close`, `session/delete` (only when advertised: otherwise the
 * connection answers it -32601 like any method it does not serve),
 * `session/set_config_option`, `tool_call/cancel`, `terminal/cancel` and, with `auth`,
 * `auth/login` / `auth/logout` on one client connection.
 */
export function registerSessionMethods(connection: Pick<MethodGate, 'onRequest'>, host: MethodHost): void {
  const { agent, options, state, peer } = host;
  // Every method here is served after `initialize` and any required login: the gate checks that.
  const context = (request: RequestContext): MethodContext => ({ client: peer, signal: request.signal });

  connection.onRequest(
    'session/list',
    wire(async (params, request) => {
      if (typeof params.cwd === 'string') requireAbsolute(params.cwd);
      const builtIn = (p: typeof params) =>
        listSessionPage(agent.log, p, options.listPageSize ?? DEFAULT_LIST_PAGE_SIZE);
      if (!options.listSessions) return builtIn(params);
      return runHandler(host, 'listSessions', undefined, () =>
        options.listSessions!(params, { ...context(request), builtIn }),
      );
    }),
  );

  connection.onRequest(
    'session/close',
    wire(async (params, request) => {
      if (!(await agent.log.getSession(params.sessionId))) throw sessionNotFound(params.sessionId);
      // The owner closes it too (its turn is aborted there); then it is closed here.
      await atOwner(host, params.sessionId, { method: 'session/close' });
      await runWorkRequest(host, params.sessionId, { method: 'session/close' }, context(request));
      return {};
    }),
  );

  if (agent.capabilities.session?.delete) {
    connection.onRequest(
      'session/delete',
      wire(async (params, request) => {
        if (!(await agent.log.getSession(params.sessionId))) throw sessionNotFound(params.sessionId);
        if (options.onDeleteSession) {
          await runHandler(host, 'onDeleteSession', params.sessionId, () =>
            options.onDeleteSession!(params.sessionId, context(request)),
          );
        }
        const live = agent.sessions.get(params.sessionId);
        if (live && options.onCloseSession) {
          live.cancel();
          await runHandler(host, 'onCloseSession', live.id, () =>
            options.onCloseSession!(live, context(request)),
          );
        }
        if (!(await agent.deleteSession(params.sessionId))) throw sessionNotFound(params.sessionId);
        return {};
      }),
    );
  }

  connection.onRequest(
    'session/set_config_option',
    wire(async (params, request) => {
      const session = await agent.session(params.sessionId);
      if (!session) throw sessionNotFound(params.sessionId);
      const current = await session.configOptions();
      const next = options.setConfigOption
        ? await runHandler(host, 'setConfigOption', session.id, () =>
            options.setConfigOption!(params, {
              ...context(request),
              session,
              current,
              builtIn: applyConfigOption,
            }),
          )
        : applyConfigOption(params, current);
      await session.setConfigOptions(next);
      return { configOptions: [...next] };
    }),
  );

  connection.onRequest(
    'tool_call/cancel',
    wire(async (params, request) => {
      const work: ForwardedRequest = { method: 'tool_call/cancel', toolCallId: params.toolCallId };
      if (!(await atOwner(host, params.sessionId, work)))
        await runWorkRequest(host, params.sessionId, work, context(request));
      return {};
    }),
  );

  connection.onRequest(
    'terminal/cancel',
    wire(async (params, request) => {
      const work: ForwardedRequest = { method: 'terminal/cancel', terminalId: params.terminalId };
      if (!(await atOwner(host, params.sessionId, work)))
        await runWorkRequest(host, params.sessionId, work, context(request));
      return {};
    }),
  );

  const auth = options.auth;
  if (auth) {
    connection.onRequest('auth/login', async (params, request) => {
      if (!state.initialized) state.gate('auth/login');
      const ids = auth.methods.map((method) => method.methodId);
      if (!ids.includes(params.methodId)) {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `Unknown auth method ${JSON.stringify(params.methodId)}`,
          {
            pointer: '/params/methodId',
            expected: `one of ${ids.map((id) => JSON.stringify(id)).join(', ')}`,
          },
        );
      }
      if (auth.login) await runHandler(host, 'login', undefined, () => auth.login!(params, context(request)));
      state.authenticated = true;
      return {};
    });
    connection.onRequest('auth/logout', async (params, request) => {
      if (!state.initialized) state.gate('auth/logout');
      if (auth.logout)
        await runHandler(host, 'logout', undefined, () => auth.logout!(params, context(request)));
      state.authenticated = false;
      // Logged out, the connection may no longer read sessions: it stops following them.
      if (state.loginRequired) host.detachAll();
      return {};
    });
  }
}
