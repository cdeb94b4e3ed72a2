import type { AgentCapabilities, SessionId } from '@acp-kit/schema';
import { randomUUID } from 'node:crypto';
import { schemaValidator } from '../codec/v2-validator.js';
import { MemorySessionLog } from '../history/memory-session-log.js';
import type { SessionLog } from '../history/session-log.js';
import type { Connection } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { AgentOptions, HandlerErrorContext } from './agent-options.js';
import { AgentSession } from './agent-session.js';
import type { ClientPeer } from './connection/client-peer.js';
import type { AgentConnection } from './connection/connection-peer.js';
import { ConnectionState } from './connection/connection-state.js';
import { AGENT_FEATURES } from './features/index.js';
import { cancelHere, runForwardedPrompt } from './features/prompts.js';
import { runWorkRequest } from './features/work-requests.js';
import { forwardedPromptPeer } from './connection/forwarded-prompt-peer.js';
import type { Admission } from './connection/method-gate.js';
import { MethodTable } from './connection/method-table.js';
import { McpOverAcpCaller } from '../mcp-over-acp/caller.js';
import { ProviderRegistry } from './providers.js';
import { ServedConnection } from './connection/served-connection.js';
import type { AgentHost, ConnectionHost } from './connection/serving.js';
import { checkWriteBehind } from './writing/session-writer.js';
import { guardSubagents } from './sessions/subagents.js';
import { unstableCapabilitiesIn, unstableNotEnabled } from '../unstable-surface.js';
import type { SessionSettings } from './sessions/session-settings.js';
import { withSettings } from './sessions/session-settings.js';
import type { StableIf } from './stable-options.js';

export type { AgentOptions, HandlerErrorContext, PromptContext } from './agent-options.js';
export type { AgentConnection } from './connection/connection-peer.js';
export type { StableAgentCapabilities, StableIf, StableOnly } from './stable-options.js';
export { PROTOCOL_VERSION } from './features/connection-lifecycle.js';

/**
 * An ACP v2 agent: sessions, their retained history and the prompt lifecycle, served to any
 * number of client connections at once (each {@link Agent.serve} call adds one).
 */
export class Agent<U extends boolean = false> {
  readonly #options: AgentOptions;
  readonly #log: SessionLog;
  readonly #sessions = new Map<SessionId, AgentSession>();
  readonly #loading = new Map<SessionId, Promise<AgentSession | undefined>>();
  #peerCount = 0;
  #table: MethodTable<ConnectionHost> | undefined;

  /** What the feature modules use of this agent (they never see the class). */
  readonly #host: AgentHost;
  /**
   * The LLM providers clients may configure (unstable, the `providers` option), or undefined
   * without it: {@link ProviderRegistry.route} says where a provider sends requests now.
   */
  readonly providers: ProviderRegistry | undefined;
  /**
   * MCP over ACP (unstable, the `mcpOverAcp` option), or undefined without it: the acp servers
   * each client declared for a session ({@link McpOverAcpCaller.servers}) and `mcp/message`
   * requests to them ({@link McpOverAcpCaller.request}, {@link McpOverAcpCaller.server}).
   */
  readonly mcp: McpOverAcpCaller | undefined;

  /**
   * `U` is the type of `options.unstable`: absent or `false`, the options are typed stable-only
   * ({@link StableOnly}: no unstable capability, no `providers`, no `mcpOverAcp`), so an unstable
   * method cannot be registered without opting in with `unstable: true` (or options typed
   * `AgentOptions`, whose `unstable` is a `boolean` decided at run time).
   */
  constructor(options: Omit<AgentOptions, 'unstable'> & { unstable?: U } & StableIf<U>) {
    if (options.writeBehind !== undefined && options.writeBehind !== false)
      checkWriteBehind(options.writeBehind);
    if (!options.unstable) {
      const unstable = unstableCapabilitiesIn(options.capabilities).map((name) => `capabilities.${name}`);
      if (options.providers !== undefined) unstable.push('the providers option');
      if (options.mcpOverAcp !== undefined) unstable.push('the mcpOverAcp option');
      if (options.nes !== undefined) unstable.push('the nes option');
      if (unstable.length > 0) throw unstableNotEnabled(unstable.join(', '), 'Agent');
    }
    this.#options = options;
    this.#log = options.history ?? new MemorySessionLog();
    this.providers = options.providers === undefined ? undefined : new ProviderRegistry(options.providers);
    const mcp = options.mcpOverAcp;
    this.mcp =
      mcp === undefined
        ? undefined
        : new McpOverAcpCaller(
            mcp === true ? { info: { name: options.info.name, version: options.info.version } } : mcp,
          );
    this.#host = this.#hostFor();
    options.ownership?.bind({
      sessions: this.#sessions,
      runForwardedPrompt: (prompt) => runForwardedPrompt(this.#host, prompt),
      cancelForwarded: (sessionId) => cancelHere(this.#host, sessionId),
      runForwardedRequest: (sessionId, request) =>
        runWorkRequest(this.#host, sessionId, request, {
          client: forwardedPromptPeer(sessionId),
          signal: new AbortController().signal,
        }),
    });
  }

  #hostFor(): AgentHost {
    return {
      options: this.#options,
      log: this.#log,
      capabilities: this.capabilities,
      providers: this.providers,
      mcp: this.mcp,
      sessions: this.#sessions,
      newSessionId: () => this.newSessionId(),
      session: (sessionId) => this.session(sessionId),
      require: (sessionId) => this.#require(sessionId),
      createSession: (cwd, options) => this.createSession(cwd, options),
      closeSession: (sessionId) => this.closeSession(sessionId),
      deleteSession: (sessionId) => this.deleteSession(sessionId),
      handlerFailed: (error, context) => this.#handlerFailed(error, context),
    };
  }

  /** The log the agent was given (or its default {@link MemorySessionLog}); the same as {@link Agent.log}. */
  get history(): SessionLog {
    return this.#log;
  }

  /** The session log every session lives in. */
  get log(): SessionLog {
    return this.#log;
  }

  /**
   * The capabilities the agent was configured with (the `initialize` response advertises those
   * that gate methods exactly when it serves them).
   */
  get capabilities(): AgentCapabilities {
    let given = this.#options.capabilities ?? {};
    if (this.#options.mcpOverAcp !== undefined && !given.session?.mcp?.acp) {
      const session = given.session ?? {};
      given = { ...given, session: { ...session, mcp: { ...session.mcp, acp: {} } } };
    }
    if (this.#options.nes !== undefined) given = { ...given, nes: this.#options.nes.capabilities ?? {} };
    if (this.#options.auth && given.auth === undefined) return { ...given, auth: {} };
    return given;
  }

  /** A fresh session ID (`sess_…`). */
  newSessionId(): SessionId {
    return `sess_${randomUUID()}`;
  }

  /**
   * Closes a live session: its work is cancelled (the turn's signal aborts, prompts not yet
   * inserted are answered -32800), every client is detached, and the agent stops holding it. Its
   * history stays: `session/resume` loads it again. False if it was not loaded.
   */
  async closeSession(sessionId: SessionId): Promise<boolean> {
    const live =
      this.#sessions.get(sessionId) ?? (await this.#loading.get(sessionId)?.catch(() => undefined));
    if (!live) return false;
    live.close();
    if (this.#sessions.get(sessionId) === live) this.#sessions.delete(sessionId);
    return true;
  }

  /** Closes the session (if loaded) and deletes it with its retained history. False if unknown. */
  async deleteSession(sessionId: SessionId): Promise<boolean> {
    await this.closeSession(sessionId);
    return this.#log.deleteSession(sessionId);
  }

  #newSession(sessionId: SessionId, cwd: string): AgentSession {
    const options = {
      ...(this.#options.maxHeldUpdates === undefined ? {} : { maxHeldUpdates: this.#options.maxHeldUpdates }),
      ...(this.#options.writeBehind === undefined ? {} : { writeBehind: this.#options.writeBehind }),
      spawn: (childCwd: string) => this.createSession(childCwd),
      unstable: this.#options.unstable ?? false,
    };
    return new AgentSession(sessionId, cwd, this.#log, options);
  }

  /**
   * Resolves once every session loaded in memory is idle as its log reports it (see
   * {@link AgentSession.whenIdle}). Call it when the last client has gone and before closing the
   * history: work that was still ending — a permission request or elicitation withdrawn because
   * the client asked left, answered `cancelled` — writes its turn's stop reason first.
   */
  async whenIdle(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((session) => session.whenIdle()));
  }

  /** The sessions currently loaded in memory. */
  get sessions(): ReadonlyMap<SessionId, AgentSession> {
    return this.#sessions;
  }

  /** Finds a session in memory or, after a restart, in retained history. */
  async session(sessionId: SessionId): Promise<AgentSession | undefined> {
    const live = this.#sessions.get(sessionId);
    if (live) return live;
    const pending = this.#loading.get(sessionId);
    if (pending) return pending;
    const loading = this.#log.getSession(sessionId).then(async (record) => {
      if (!record) return undefined;
      const session = this.#sessions.get(sessionId) ?? this.#newSession(record.sessionId, record.cwd);
      this.#sessions.set(sessionId, session);
      await session.following();
      return session;
    });
    this.#loading.set(sessionId, loading);
    loading.finally(() => this.#loading.delete(sessionId)).catch(() => undefined);
    return loading;
  }

  /** Creates a session without a client (for example to import history into it). */
  async createSession(
    cwd: string,
    options: { sessionId?: SessionId; title?: string | null; settings?: SessionSettings } = {},
  ): Promise<AgentSession> {
    const record = await this.#log.createSession({
      sessionId: options.sessionId ?? this.newSessionId(),
      cwd,
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.settings === undefined || Object.keys(options.settings).length === 0
        ? {}
        : { config: withSettings(null, options.settings) }),
    });
    const session = this.#newSession(record.sessionId, record.cwd);
    this.#sessions.set(session.id, session);
    await session.following();
    return session;
  }

  /**
   * Serves one client connection: registers the agent's handlers on it and starts listening.
   * Returns the {@link ClientPeer} that stands for this client inside sessions.
   */
  serve(connection: AgentConnection, label?: string): ClientPeer;
  /** Serves an untyped connection (`const c = new Connection(t); agent.serve(c)`): the agent types it. */
  serve(connection: Connection, label?: string): ClientPeer;
  serve(connection: AgentConnection | Connection, label = `client#${++this.#peerCount}`): ClientPeer {
    return this.#serve(connection as unknown as AgentConnection, label);
  }

  #serve(connection: AgentConnection, label: string): ClientPeer {
    connection.useDefaultValidator(schemaValidator);
    const state = new ConnectionState(this.#options.auth?.required ?? false);
    const served = new ServedConnection(connection, this.#methods(), this.#admission, state, label);
    connection.onClose(() => served.detachAll());
    connection.listen();
    return served.peer;
  }

  /**
   * Which methods the agent serves, what initialize advertises, and what is refused: built at the
   * first `serve` from every feature module and shared by every connection (the handlers are given
   * the connection they run for).
   */
  #methods(): MethodTable<ConnectionHost> {
    if (this.#table) return this.#table;
    const table = new MethodTable<ConnectionHost>({
      capabilities: this.capabilities,
      authMethods: this.#options.auth ? [...this.#options.auth.methods] : undefined,
    });
    const find = (sessionId: SessionId) => this.#sessions.get(sessionId);
    const dropped = (method: string, error: RpcError, connection: unknown) =>
      this.#admission.dropped?.(method, error, connection as ConnectionHost);
    for (const feature of AGENT_FEATURES) table.serve(guardSubagents(feature(this.#host), find, dropped));
    this.#table = table;
    return table;
  }

  /**
   * Every request and notification but the way in and out is served only after `initialize`
   * (-32600) and any required login (-32000); a notification that fails this is dropped and
   * reported to `onRefusedNotification`.
   */
  readonly #admission: Admission<ConnectionHost> = {
    check: (method, connection) => connection.state.gate(method),
    dropped: (method, error, connection) => {
      try {
        this.#options.onRefusedNotification?.({ method, client: connection.label, error });
      } catch {
        // The hook is for logging; its own failure must not disturb the connection.
      }
    },
  };

  async #require(sessionId: SessionId): Promise<AgentSession> {
    const session = await this.session(sessionId);
    if (!session) throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId });
    return session;
  }

  /** Hands an application handler's error to {@link AgentOptions.onHandlerError}. */
  #handlerFailed(error: unknown, context: HandlerErrorContext): void {
    try {
      this.#options.onHandlerError?.(error, context);
    } catch {
      // The hook is for logging; its own failure must not disturb the connection.
    }
  }
}
