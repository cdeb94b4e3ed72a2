import type { BridgeLossListener } from '../bridge-loss.js';
import type {
  ArchiveSessionResponse,
  McpServer,
  McpServerAcp,
  SessionId,
  SetSessionTitleResponse,
  AvailableCommand as V2Command,
  SessionConfigOption as V2ConfigOption,
  InitializeRequest as V2InitializeRequest,
} from '@acp-kit/schema';
import {
  type AgentConnection,
  type ClientPeer,
  Connection,
  ErrorCodes,
  MemorySessionLog,
  RpcError,
  schemaValidator,
  type Transport,
} from '@acp-kit/sdk';
import {
  AdapterSession,
  AgentConnectionState,
  cancellableAfter,
  checkMcpServers,
  mcpTransportsOf,
  checkSystemPrompt,
  guardSubagents,
  McpBindingErrors,
  MethodGate,
  replayCursorOf,
} from '@acp-kit/sdk/adapter';
import {
  v1ToV2AuthenticateResponse,
  v1ToV2AuthStatusUpdateNotification,
  v1ToV2CloseSessionResponse,
  v1ToV2DeleteSessionResponse,
  v1ToV2InitializeResponse,
  v1ToV2ListSessionsResponse,
  v1ToV2LogoutResponse,
  v1ToV2MessageMcpRequest,
  v2ToV1Authenticate,
  v2ToV1CloseSessionRequest,
  v2ToV1DeleteSessionRequest,
  v2ToV1ForkSessionRequest,
  v2ToV1InitializeRequest,
  v2ToV1ListSessionsRequest,
  v2ToV1LoadSessionRequest,
  v2ToV1Logout,
  v2ToV1MessageMcpNotification,
  v2ToV1MessageMcpResponse,
  v2ToV1NewSessionRequest,
  v2ToV1ResumeSessionRequest,
  v2ToV1SetSessionConfigOptionRequest,
  v2ToV1SetSessionMode,
} from '../generated/compat/converters.js';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../generated/v1/methods.js';
import type * as V1 from '../generated/v1/types.js';
import { convertParams } from '../compat-error.js';
import { reportDropped, TO_V1_AGENT_ROUTES } from '../v2-agent-as-v1/v1-routes.js';
import { v1SchemaValidator } from '../v1-validator.js';
import { WrappedPeer } from '../wrapped-peer.js';
import { BridgedSession } from './bridged-session.js';
import { ClientServices, type V1ClientServicesOptions } from './client-services.js';
import { type IdLedger, MemoryIdLedger } from './id-ledger.js';
import { lenientResults } from './lenient-results.js';
import { MessageTracker } from './message-tracker.js';
import { SessionPaths } from './session-paths.js';

/** The bridge's connection to the v1 agent: it handles v1 client methods and calls v1 agent methods. */
type V1ClientConnection = Connection<
  ClientRequestMap,
  ClientNotificationMap,
  AgentRequestMap,
  AgentNotificationMap
>;

/** Who the bridge says it is to the v1 agent when no v2 client introduced itself first. */
const BRIDGE_INFO: V1.Implementation = { name: 'acp-kit-v1-bridge', version: '1' };

/** Sessions, and updates per session, kept for sessions not opened yet (see `#orphans`). */
const MAX_ORPHAN_SESSIONS = 16;
const MAX_ORPHAN_UPDATES = 256;

/** MCP server types with a v1 form (see the McpServer conversion); `acp` is unstable in both. */
const V1_SERVER_TYPES = new Set(['stdio', 'http', '_sse', 'acp']);

/** The proxy-chain methods (unstable in both versions), which the bridge does not carry. */
const PROXY_METHODS: ReadonlySet<string> = new Set(['proxy/initialize', 'proxy/successor']);

/** The -32601 for a proxy-chain method, whichever side sent it. */
function proxyRefusal(method: string, from: string): RpcError {
  return new RpcError(
    ErrorCodes.MethodNotFound,
    `${method} from the ${from} is not carried: the v1 bridge does not carry proxy chains (put the bridge after the last proxy of a chain)`,
    { method },
  );
}

/** The serverIds of the MCP servers of type acp a session request declares. */
function acpServerIds(servers: readonly { type?: string }[] | null | undefined): string[] {
  return (servers ?? []).flatMap((server) =>
    server.type === 'acp' ? [(server as { serverId: string }).serverId] : [],
  );
}

/** Where in the params the first MCP server without a v1 form sits, for error pointers. */
function serversPointer(servers: readonly { type: string }[] | undefined): string {
  const index = servers?.findIndex((server) => !V1_SERVER_TYPES.has(server.type)) ?? -1;
  return index < 0 ? '/params' : `/params/mcpServers/${index}`;
}

/** Options of {@link V1AgentBridge}. */
export interface V1AgentBridgeOptions {
  /** Transport to the v1 agent, e.g. `spawnTransport(command, args)`. */
  agent: Transport;
  /** How errors name the agent. Default `v1 agent`. */
  name?: string;
  /**
   * Where the message IDs the bridge issues are kept (default: in memory, for the life of the
   * bridge). A {@link FileIdLedger} keeps them across bridge restarts.
   */
  ledger?: IdLedger;
  /**
   * The v1 agent's answer to an `initialize` already sent on this transport (a client that
   * negotiated down to v1): the bridge uses it instead of initializing the agent again.
   */
  initialized?: V1.InitializeResponse;
  /**
   * Told each part of a v1 update that has no v2 form and was left out, each v1 update the bridge
   * dropped as invalid, and each request or notification it could not route (proxy chains, an MCP
   * server nobody declared). `runBridge` logs them.
   */
  onLoss?: BridgeLossListener;
  /**
   * Whether the bridge serves the v1 client methods v2 clients no longer offer — `fs/read_text_file`,
   * `fs/write_text_file` and `terminal/*` — itself, on this machine, and advertises them to the v1
   * agent (default `true`). Files are confined to each session's cwd and additionalDirectories; each
   * write reaches the session's v2 clients as an `edit` tool call with a diff, each terminal as a
   * display terminal. `false`: the agent is told `fs: false, terminal: false` and asks for none.
   * An object chooses which of them are served and how ({@link V1ClientServicesOptions}: an app's
   * unsaved buffers, paths outside the session's directories, the bounds).
   */
  clientServices?: boolean | V1ClientServicesOptions;
}

/**
 * Serves a v1 agent to v2 clients. The bridge is the v2 agent — sessions, insertion receipts and
 * state updates come from the SDK's adapter seam, an {@link AdapterSession} per session — and the
 * v1 agent's sessions, prompt turns and updates are translated behind it. Serve any number of v2
 * client connections with {@link V1AgentBridge.serve}.
 */
export class V1AgentBridge {
  readonly #v1: V1ClientConnection;
  readonly #peer: WrappedPeer;
  readonly #history = new MemorySessionLog();
  readonly #ledger: IdLedger;
  readonly #onLoss: BridgeLossListener | undefined;
  readonly #sessions = new Map<SessionId, BridgedSession>();
  /** The v1 client services the bridge serves itself; undefined when turned off. */
  readonly #services: ClientServices | undefined;
  #initialize: Promise<V1.InitializeResponse> | undefined;
  /**
   * Updates for sessions the bridge has not opened yet. A v1 agent may send one right behind its
   * `session/new` or `session/load` answer (available commands, say), before the bridge has
   * processed that answer; they are applied when the session opens. Bounded, oldest dropped.
   */
  readonly #orphans = new Map<SessionId, V1.SessionUpdate[]>();
  #clientCount = 0;
  /** The v2 client connections that completed initialize (auth/status_update goes to each). */
  readonly #clients = new Set<AgentConnection>();
  /** Which v2 client connection provides each MCP server of type acp, by serverId. */
  readonly #mcpRoutes = new Map<string, AgentConnection>();
  /** The session of the v1 message being received (for the loss report of an invalid update). */
  #receivingSession = '';
  /** Resolves with the reason once the v1 agent is gone (exited, closed, or wrote garbage). */
  readonly closed: Promise<string>;
  /** The v1 agent's `agentInfo`, once its initialize answer is in. */
  #agentInfo: V1.Implementation | undefined;

  constructor(options: V1AgentBridgeOptions) {
    this.#ledger = options.ledger ?? new MemoryIdLedger();
    this.#onLoss = options.onLoss;
    if (options.initialized !== undefined) {
      this.#initialize = Promise.resolve(options.initialized);
      this.#agentInfo = options.initialized.agentInfo ?? undefined;
    }
    // Liberal where the official SDK is (a null result for session/load, say): taken, and warned about.
    const validator = lenientResults(v1SchemaValidator, ({ method, pointer, reason }) =>
      this.#onLoss?.({
        sessionId: '',
        in: method,
        pointer,
        reason: `${this.#agentName()} ${reason}`,
        warning: true,
      }),
    );
    this.#v1 = new Connection(options.agent, { validator });
    this.#peer = new WrappedPeer(options.name ?? 'v1 agent', this.#v1);
    if (options.clientServices !== false) {
      this.#services = new ClientServices(
        (sessionId) => this.#sessions.get(sessionId),
        options.clientServices === true || options.clientServices === undefined ? {} : options.clientServices,
      );
      this.#services.register(this.#v1);
    }
    this.#v1.onNotification('session/update', (params) => {
      const session = this.#sessions.get(params.sessionId);
      if (session === undefined) {
        this.#holdOrphan(params.sessionId, params.update);
        return;
      }
      const child =
        params.update.sessionUpdate === 'subagent_update'
          ? this.#child(session, params.update as V1.SubagentUpdate)
          : undefined;
      const applied = session.fromV1(params.update);
      // The child's updates wait for its announcement to reach the clients (v1 sends it first).
      child?.after(applied);
    });
    this.#v1.onRequest('session/request_permission', (params) => {
      const session = this.#sessions.get(params.sessionId);
      if (!session)
        throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId: params.sessionId });
      return session.requestPermission(params);
    });
    this.#v1.onNotification('auth/status_update', (params) => {
      const update = v1ToV2AuthStatusUpdateNotification(params);
      for (const client of this.#clients)
        client.sendNotification('auth/status_update', update).catch(() => undefined);
    });
    // MCP over ACP: the v1 agent reaches the MCP server a v2 client declared (type acp) by serverId.
    this.#v1.onRequest('mcp/message', async (params, context) => {
      const client = this.#mcpRoute(params.serverId, 'mcp/message');
      const result = await client.sendRequest('mcp/message', v1ToV2MessageMcpRequest(params), {
        signal: context.signal,
      });
      return v2ToV1MessageMcpResponse(result);
    });
    // Proxy chains are not carried (unstable in both versions): refused and reported.
    this.#v1.onRequest('proxy/successor', () => {
      this.#lost('proxy/successor', '', 'the v1 bridge does not carry proxy chains');
      throw proxyRefusal('proxy/successor', this.#peer.name);
    });
    this.#v1.onNotification('proxy/successor', () => {
      this.#lost('proxy/successor', '', 'the v1 bridge does not carry proxy chains (notification dropped)');
    });
    // A v1 notification that breaks the schema (a malformed update, say) is dropped by the
    // connection, which has no one to answer: the bridge reports it as a loss, with the session of
    // the message it was reading (the tap sees each message just before it is handled).
    this.#v1.onMessage((direction, message) => {
      if (direction !== 'in') return;
      const sessionId = (message as { params?: { sessionId?: unknown } }).params?.sessionId;
      this.#receivingSession = typeof sessionId === 'string' ? sessionId : '';
    });
    this.#v1.onDiagnostic((diagnostic) => {
      if (diagnostic.kind !== 'invalid-notification-params' || diagnostic.method === undefined) return;
      this.#onLoss?.({
        sessionId: this.#receivingSession,
        in: diagnostic.method,
        pointer: diagnostic.pointer ?? '/params',
        reason: `the notification breaks v1's schema and was dropped (${diagnostic.message})`,
      });
    });
    this.closed = this.#peer.closed;
    this.closed.then((reason) => {
      const error = new RpcError(ErrorCodes.InternalError, `${this.#peer.name} unavailable: ${reason}`);
      for (const session of this.#sessions.values()) session.failHeld(error);
      // The agent that asked for them is gone: its terminals go too.
      this.#services?.closeAll();
    });
    this.#v1.listen();
  }

  /**
   * A `subagent_update` naming a session the bridge has not opened announces a child: it is opened
   * now, before its own updates can arrive, and the parent's clients follow it (returned, to wait
   * for its announcement). Each one, first or later, sets what clients may do to the child: its
   * `capabilities` by the upsert rules, read by the subagent guard.
   */
  #child(parent: BridgedSession, update: V1.SubagentUpdate): BridgedSession | undefined {
    let child = this.#sessions.get(update.sessionId);
    const opened = child === undefined;
    if (child === undefined) {
      child = this.#open(update.sessionId, update.cwd ?? parent.agentSession.cwd);
      // A subagent's files are its own cwd's and its parent's.
      child.paths = new SessionPaths(child.cwd, parent.paths.roots);
      parent.adopt(child);
    }
    if (child.family.parent === parent)
      child.family.cancellable = cancellableAfter(child.family.cancellable, update.capabilities);
    return opened ? child : undefined;
  }

  /** How warnings name the v1 agent: its agentInfo name and version when it gave them. */
  #agentName(): string {
    const info = this.#agentInfo;
    return info === undefined ? `the ${this.#peer.name}` : `the v1 agent ${info.name} ${info.version}`;
  }

  /** Reports something that is not about one session (sessionId ''). */
  #lost(method: string, pointer: string, reason: string): void {
    this.#onLoss?.({ sessionId: '', in: method, pointer, reason });
  }

  /** The v2 client connection that provides the MCP server `serverId`; -33001 when none does. */
  #mcpRoute(serverId: string, method: string): AgentConnection {
    const client = this.#mcpRoutes.get(serverId);
    if (client !== undefined) return client;
    this.#lost(
      method,
      '/params/serverId',
      `no v2 client declared the MCP server ${JSON.stringify(serverId)}`,
    );
    throw new RpcError(
      McpBindingErrors.ServerUnavailable,
      `No MCP server ${JSON.stringify(serverId)} was declared through the bridge`,
      {
        serverId,
      },
    );
  }

  #holdOrphan(sessionId: SessionId, update: V1.SessionUpdate): void {
    let held = this.#orphans.get(sessionId);
    if (held === undefined) {
      if (this.#orphans.size >= MAX_ORPHAN_SESSIONS) {
        const oldest = this.#orphans.keys().next().value;
        if (oldest !== undefined) this.#orphans.delete(oldest);
      }
      held = [];
      this.#orphans.set(sessionId, held);
    }
    held.push(update);
    if (held.length > MAX_ORPHAN_UPDATES) held.shift();
  }

  /** Closes the connection to the v1 agent and kills the terminals the bridge runs for it. */
  close(): void {
    this.#services?.closeAll();
    this.#peer.close();
  }

  /**
   * Sends a v2 client's request to the v1 agent under its v1 name, params and result converted by
   * the generated mapping (`TO_V1_AGENT_ROUTES`), as the codec routes the other direction.
   */
  async #relay(method: string, params: unknown): Promise<unknown> {
    const route = TO_V1_AGENT_ROUTES.get(method);
    if (route === undefined) throw new Error(`the v1 ⇄ v2 mapping has no v1 counterpart of ${method}`);
    const call = { method, sessionId: (params as { sessionId?: unknown } | null | undefined)?.sessionId };
    reportDropped(this.#onLoss, route.paramsDropped, params, '/params', call);
    const v1Params = route.params === undefined ? params : route.params(params as never);
    const result: unknown = await this.#call(() =>
      this.#v1.sendRequest(route.v1 as never, v1Params as never),
    );
    reportDropped(this.#onLoss, route.resultDropped, result, '/result', call);
    return route.result === undefined ? result : route.result(result as never);
  }

  /** Relays a v2 client's notification to the v1 agent through the generated mapping. */
  async #relayNotification(method: string, params: unknown): Promise<void> {
    const route = TO_V1_AGENT_ROUTES.get(method);
    if (route === undefined) throw new Error(`the v1 ⇄ v2 mapping has no v1 counterpart of ${method}`);
    const call = { method, sessionId: (params as { sessionId?: unknown } | null | undefined)?.sessionId };
    reportDropped(this.#onLoss, route.paramsDropped, params, '/params', call);
    const v1Params = route.params === undefined ? params : route.params(params as never);
    await this.#v1.sendNotification(route.v1 as never, v1Params as never);
  }

  async #call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#peer.toBridgeError(error);
    }
  }

  /**
   * Initializes the v1 agent once, with the first v2 client's info. The file-system and terminal
   * capabilities are the bridge's own (v2 clients serve neither): present unless
   * {@link V1AgentBridgeOptions.clientServices} turned them off. It always
   * advertises v1's unstable `plan` and `subagents`: the one v1 initialize serves every v2 client,
   * v2 has no such client capability (a v2 client takes plan, subagent and session-message updates
   * without advertising anything), and a v2 client that did not opt in to the unstable surface
   * keeps those kinds as unknown updates, as v2 requires of every receiver.
   */
  #v1Capabilities(first?: V2InitializeRequest): Promise<V1.InitializeResponse> {
    const asV1 = first === undefined ? undefined : v2ToV1InitializeRequest(first);
    const clientInfo = asV1 === undefined ? BRIDGE_INFO : asV1.clientInfo;
    // Next edit suggestions: the first client's suggestion kinds and position encodings, as the
    // agent may send a kind beyond edit, and pick an encoding, only from what the client offered.
    const nes = asV1?.clientCapabilities?.nes;
    const encodings = asV1?.clientCapabilities?.positionEncodings;
    this.#initialize ??= this.#call(() =>
      this.#v1.sendRequest('initialize', {
        protocolVersion: 1,
        clientCapabilities: {
          ...(this.#services?.capabilities ?? {
            fs: { readTextFile: false, writeTextFile: false },
            terminal: false,
          }),
          plan: {},
          subagents: {},
          ...(nes === undefined || nes === null ? {} : { nes }),
          ...(encodings === undefined ? {} : { positionEncodings: encodings }),
        },
        clientInfo: clientInfo ?? BRIDGE_INFO,
      }),
    ).then((answer) => {
      this.#agentInfo = answer.agentInfo ?? undefined;
      return answer;
    });
    return this.#initialize;
  }

  /** Opens the bridge's side of a session synchronously, so no update for it can slip past. */
  #open(sessionId: SessionId, cwd: string, epoch = ''): BridgedSession {
    const existing = this.#sessions.get(sessionId);
    if (existing) return existing;
    // The SDK session checks message IDs against the history store, which must know the session:
    // `ready` settles once it does.
    // Unstable update kinds (subagents, session messages, plan removals) come from the v1 agent
    // only because the bridge advertised plan and subagents; they reach v2 clients as they are.
    const adapter = new AdapterSession({ sessionId, cwd, history: this.#history, unstable: true });
    const link = {
      prompt: (params: V1.PromptRequest) => this.#v1.sendRequest('session/prompt', params),
      cancel: (params: V1.CancelNotification) => this.#v1.sendNotification('session/cancel', params),
      toBridgeError: (error: unknown) => this.#peer.toBridgeError(error),
      ...(this.#onLoss === undefined ? {} : { onLoss: this.#onLoss }),
    };
    const tracker = new MessageTracker(sessionId, this.#ledger, {
      epoch,
      // A replay that differs from what was seen live is reported, with what differed.
      onDivergence: ({ reason }) =>
        this.#onLoss?.({
          sessionId,
          in: 'session/load',
          pointer: '',
          reason: `${this.#agentName()}: ${reason}`,
          warning: true,
        }),
    });
    const session = new BridgedSession(adapter, tracker, link);
    this.#sessions.set(sessionId, session);
    for (const update of this.#orphans.get(sessionId) ?? []) session.fromV1(update);
    this.#orphans.delete(sessionId);
    return session;
  }

  /** What a session/new or session/resume answer says about the session's options and commands. */
  #settings(session: BridgedSession): { configOptions?: V2ConfigOption[]; availableCommands?: V2Command[] } {
    const configOptions = session.options.v2();
    return {
      ...(configOptions === undefined ? {} : { configOptions }),
      ...(session.commands === undefined ? {} : { availableCommands: session.commands }),
    };
  }

  /** A resume ends with the session's current activity, so the client does not take it for idle. */
  async #current(session: BridgedSession, peer: ClientPeer): Promise<void> {
    await session.adapter.sendStateTo(peer);
  }

  /**
   * The session was closed, archived or deleted on the v1 agent: its clients are let go and it is
   * dropped, and so are the subagents it announced (no client follows a child through a parent it
   * no longer has; a resume of the parent with replay announces them again).
   */
  #forget(sessionId: SessionId): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    this.#sessions.delete(sessionId);
    this.#services?.closeSession(sessionId);
    session.adapter.close();
    for (const child of session.children) if (child.family.parent === session) this.#forget(child.id);
  }

  #require(sessionId: SessionId): BridgedSession {
    const session = this.#sessions.get(sessionId);
    if (!session) throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId });
    return session;
  }

  /**
   * Serves one v2 client connection over `transport`; returns the connection (already listening).
   * The connection's methods go through the SDK's {@link MethodGate}, as an agent's do: served
   * after `initialize` (-32600 before it), refused -32601 when the v1 agent does not advertise
   * their capability, params with text no store keeps refused -32602.
   */
  serve(transport: Transport): AgentConnection {
    const connection: AgentConnection = new Connection(transport, { validator: schemaValidator });
    const state = new AgentConnectionState(false);
    const gate = new MethodGate(
      connection,
      {},
      {
        // A proxy-chain method gets its own -32601 (below), before initialize too.
        check: (method) => (PROXY_METHODS.has(method) ? undefined : state.gate(method)),
      },
    );
    // What this bridge advertises is the v1 agent's answer, known at the client's initialize.
    gate.adapt(undefined);
    const peer = gate.clientPeer(connection, `v2-client#${++this.#clientCount}`);
    const attached = new Set<BridgedSession>();
    const attach = (session: BridgedSession): void => {
      session.follow(peer);
      attached.add(session);
    };
    /**
     * MCP servers of type acp this client declares are reached through this connection. Refused
     * -32602 at their pointer, as by an agent, when a name repeats, when the v1 agent does not
     * advertise the transport (`http`, `acp`, and v1's `sse`, carried in v2 as `_sse`), when a
     * serverId is given twice, or when another client's server already has it: the one v1
     * connection addresses them all by serverId.
     */
    const declare = (servers: readonly McpServer[] | null | undefined, v1: V1.InitializeResponse): void => {
      checkMcpServers(servers, {
        ...mcpTransportsOf(gate.advertisement().capabilities?.session?.mcp),
        _sse: v1.agentCapabilities?.mcpCapabilities?.sse === true,
      });
      for (const [index, server] of (servers ?? []).entries()) {
        const serverId = server.type === 'acp' ? (server as McpServerAcp).serverId : undefined;
        const owner = serverId === undefined ? undefined : this.#mcpRoutes.get(serverId);
        if (owner !== undefined && owner !== connection) {
          throw new RpcError(
            ErrorCodes.InvalidParams,
            `/params/mcpServers/${index}/serverId: ${serverId} is already declared by another client of this bridge`,
            {
              pointer: `/params/mcpServers/${index}/serverId`,
              expected: 'a serverId no other client of the bridge uses',
            },
          );
        }
      }
      for (const serverId of acpServerIds(servers)) this.#mcpRoutes.set(serverId, connection);
    };
    /**
     * A system prompt the v1 agent cannot take is refused -32602 before anything is sent to it, as
     * an agent refuses one it did not advertise (the capability is the v1 agent's, carried over).
     */
    const checkPrompt = (systemPrompt: Parameters<typeof checkSystemPrompt>[1]): void => {
      checkSystemPrompt(gate.advertisement().capabilities ?? {}, systemPrompt);
    };
    const refuseProxy = (method: string): never => {
      this.#lost(method, '', 'the v1 bridge does not carry proxy chains');
      throw proxyRefusal(method, 'v2 client');
    };

    // A client may change a subagent only as its parent's latest announcement permits (the
    // SDK's guard, as an acp-kit agent applies it): a request is refused -32602 naming the parent,
    // a session/cancel of a child that is not cancellable is dropped and reported. Nothing of
    // either reaches the v1 agent.
    const find = (sessionId: SessionId) => this.#sessions.get(sessionId);
    const dropped = (method: string, error: RpcError) => {
      const sessionId = (error.data as { sessionId?: string } | undefined)?.sessionId ?? '';
      this.#onLoss?.({ sessionId, in: method, pointer: '/params/sessionId', reason: error.message });
    };
    type Handlers = Parameters<typeof gate.serve>[0];
    /** A handler that only relays the request to the v1 agent (see {@link V1AgentBridge.#relay}). */
    const relay = <K extends keyof Handlers>(method: K & string): NonNullable<Handlers[K]> =>
      ((params: unknown) => this.#relay(method, params)) as NonNullable<Handlers[K]>;
    const notify = <K extends keyof Handlers>(method: K & string): NonNullable<Handlers[K]> =>
      ((params: unknown) => this.#relayNotification(method, params)) as unknown as NonNullable<Handlers[K]>;
    const handlers: Handlers = {
      initialize: async (params) => {
        // The v1 agent is initialized once, by the bridge; each v2 client gets the translated answer.
        const response = v1ToV2InitializeResponse(await this.#v1Capabilities(params));
        // Every v1 agent serves the baseline session methods, whatever capabilities it lists.
        const capabilities = { ...response.capabilities, session: response.capabilities?.session ?? {} };
        gate.adapt({
          capabilities,
          ...(response.authMethods === undefined ? {} : { authMethods: response.authMethods }),
        });
        state.initialized = true;
        this.#clients.add(connection);
        return { ...response, ...gate.advertisement() };
      },

      'session/new': async (params) => {
        const v1 = await this.#v1Capabilities();
        checkPrompt(params.systemPrompt);
        declare(params.mcpServers, v1);
        const created = await this.#call(() =>
          this.#v1.sendRequest(
            'session/new',
            convertParams(() => v2ToV1NewSessionRequest(params), serversPointer(params.mcpServers)),
          ),
        );
        const session = this.#open(created.sessionId, params.cwd);
        session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
        session.options.take(created);
        attach(session);
        return { sessionId: created.sessionId, ...this.#settings(session) };
      },

      // Unstable in both versions: served when the v1 agent advertises sessionCapabilities.fork
      // (the gate refuses it otherwise, -32601). The fork is a new session to the bridge; its
      // history reaches v2 clients by a resume with replay (a v1 session/load of the fork).
      'session/fork': async (params) => {
        const v1 = await this.#v1Capabilities();
        checkPrompt(params.systemPrompt);
        declare(params.mcpServers, v1);
        const forked = await this.#call(() =>
          this.#v1.sendRequest(
            'session/fork',
            convertParams(() => v2ToV1ForkSessionRequest(params), serversPointer(params.mcpServers ?? [])),
          ),
        );
        const session = this.#open(forked.sessionId, params.cwd);
        session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
        session.options.take(forked);
        attach(session);
        return { sessionId: forked.sessionId, ...this.#settings(session) };
      },

      'session/resume': async (params) => {
        const v1 = await this.#v1Capabilities();
        const caps = v1.agentCapabilities;
        checkPrompt(params.systemPrompt);
        declare(params.mcpServers, v1);
        const cursor = replayCursorOf(params);
        const live = this.#sessions.get(params.sessionId);
        if (live !== undefined && cursor === undefined) {
          attach(live);
          await this.#current(live, peer);
          return this.#settings(live);
        }
        if (caps?.loadSession === true) {
          // Also without replay: loading lets the bridge recount message positions, so the
          // derived IDs of later messages continue where the conversation left off.
          const session = this.#open(params.sessionId, params.cwd);
          session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
          const loaded = await session.load(cursor === undefined ? undefined : peer, () =>
            this.#call(() =>
              this.#v1.sendRequest(
                'session/load',
                convertParams(() => v2ToV1LoadSessionRequest(params), serversPointer(params.mcpServers)),
              ),
            ),
          );
          session.options.take(loaded);
          attach(session);
          await this.#current(session, peer);
          return this.#settings(session);
        }
        if (live !== undefined) {
          // Asked for replay, but the v1 agent cannot load: nothing is retained, nothing replayed.
          attach(live);
          await this.#current(live, peer);
          return this.#settings(live);
        }
        if (caps?.sessionCapabilities?.resume === undefined || caps.sessionCapabilities.resume === null) {
          throw new RpcError(
            ErrorCodes.ResourceNotFound,
            'Session not found: the v1 agent can neither load nor resume sessions',
            {
              sessionId: params.sessionId,
            },
          );
        }
        const resumed = await this.#call(() =>
          this.#v1.sendRequest(
            'session/resume',
            convertParams(() => v2ToV1ResumeSessionRequest(params), serversPointer(params.mcpServers)),
          ),
        );
        // Positions are unknown without a replay: later derived IDs are salted to stay unique.
        const session = this.#open(params.sessionId, params.cwd, globalThis.crypto.randomUUID());
        session.paths = new SessionPaths(params.cwd, params.additionalDirectories ?? []);
        session.options.take(resumed);
        attach(session);
        await this.#current(session, peer);
        return this.#settings(session);
      },

      'auth/login': async (params) => {
        await this.#v1Capabilities();
        const result = await this.#call(() =>
          this.#v1.sendRequest('authenticate', v2ToV1Authenticate(params)),
        );
        return v1ToV2AuthenticateResponse(result);
      },

      'auth/logout': async (params) => {
        const caps = (await this.#v1Capabilities()).agentCapabilities;
        // v2 advertises logout with the auth methods; v1 says it separately.
        if (caps?.auth?.logout === undefined || caps.auth.logout === null) {
          throw new RpcError(ErrorCodes.MethodNotFound, 'The v1 agent does not support logout', {
            method: 'auth/logout',
          });
        }
        const result = await this.#call(() => this.#v1.sendRequest('logout', v2ToV1Logout(params)));
        return v1ToV2LogoutResponse(result);
      },

      'session/set_config_option': async (params) => {
        const session = this.#require(params.sessionId);
        if (session.options.isMode(params.configId)) {
          // The option that stands for the v1 modes: a v1 session/set_mode.
          const request = convertParams(() => v2ToV1SetSessionMode(params), '/params');
          await this.#call(() => this.#v1.sendRequest('session/set_mode', request));
          session.options.take({ modes: session.options.modesWith(request.modeId) });
        } else {
          const result = await this.#call(() =>
            this.#v1.sendRequest('session/set_config_option', v2ToV1SetSessionConfigOptionRequest(params)),
          );
          session.options.take(result);
        }
        return { configOptions: session.options.v2() ?? [] };
      },

      'session/list': async (params) => {
        const caps = (await this.#v1Capabilities()).agentCapabilities;
        if (caps?.sessionCapabilities?.list !== undefined && caps.sessionCapabilities.list !== null) {
          const page = await this.#call(() =>
            this.#v1.sendRequest('session/list', v2ToV1ListSessionsRequest(params)),
          );
          return v1ToV2ListSessionsResponse(page);
        }
        // The v1 agent cannot list: the bridge lists the sessions it holds (created or resumed
        // through it), on one page. Without the v1 archive capability none is archived.
        if (params.archived === 'only') return { sessions: [] };
        const cwd = params.cwd ?? undefined;
        const sessions = [...this.#sessions.values()]
          .filter((s) => cwd === undefined || s.agentSession.cwd === cwd)
          .map((s) => ({ sessionId: s.id, cwd: s.agentSession.cwd }));
        return { sessions };
      },

      'session/close': async (params, request) => {
        const caps = (await this.#v1Capabilities()).agentCapabilities;
        const session = this.#sessions.get(params.sessionId);
        // As if session/cancel had been called (upstream's v2 draft, session-setup: MUST): the v1
        // turn is cancelled and its end reaches the session's clients before anything is closed.
        await session?.cancelForClose(request.signal);
        if (caps?.sessionCapabilities?.close !== undefined && caps.sessionCapabilities.close !== null) {
          const result = await this.#call(() =>
            this.#v1.sendRequest('session/close', v2ToV1CloseSessionRequest(params)),
          );
          this.#forget(params.sessionId);
          return v1ToV2CloseSessionResponse(result);
        }
        // The v1 agent cannot close: the session stays open there (and listed); this client is detached.
        if (session === undefined)
          throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', {
            sessionId: params.sessionId,
          });
        session.unfollow(peer);
        attached.delete(session);
        return {};
      },

      // Served when the v1 agent advertises it (the gate refuses it otherwise, -32601).
      // Deleting a session the v1 agent does not know succeeds silently (upstream's v2 draft,
      // session-delete: SHOULD), whatever the v1 agent answers (-32002).
      'session/delete': async (params) => {
        let result: V1.DeleteSessionResponse;
        try {
          result = await this.#call(() =>
            this.#v1.sendRequest('session/delete', v2ToV1DeleteSessionRequest(params)),
          );
        } catch (error) {
          if (!(error instanceof RpcError) || error.code !== ErrorCodes.ResourceNotFound) throw error;
          result = {};
        }
        this.#forget(params.sessionId);
        return v1ToV2DeleteSessionResponse(result);
      },

      // Unstable in both versions, each served when the v1 agent advertises its capability (the
      // gate refuses it otherwise, -32601), relayed as the generated mapping converts it.
      'session/set_title': async (params) => {
        const response = (await this.#relay('session/set_title', params)) as SetSessionTitleResponse;
        // v2 promises attached clients the stored title as a session_info_update, after the
        // updates the v1 agent sent before its answer (on the session's queue, as they are).
        await this.#sessions
          .get(params.sessionId)
          ?.report({ sessionUpdate: 'session_info_update', title: response.title });
        return response;
      },

      // v1's answer says open or saved only: the v2 answer carries no state.
      'session/status': relay('session/status'),

      // Archiving closes the session first in both versions: the bridge lets it go as after a
      // session/close (a client resumes it after unarchiving).
      'session/archive': async (params) => {
        const response = (await this.#relay('session/archive', params)) as ArchiveSessionResponse;
        this.#forget(params.sessionId);
        return response;
      },

      'session/unarchive': relay('session/unarchive'),
      'auth/status': relay('auth/status'),
      'providers/list': relay('providers/list'),
      'providers/set': relay('providers/set'),
      'providers/disable': relay('providers/disable'),

      // Next edit suggestions (unstable in both): the same methods and shapes, relayed as they are.
      'nes/start': relay('nes/start'),
      'nes/suggest': relay('nes/suggest'),
      'nes/close': relay('nes/close'),
      'nes/accept': notify('nes/accept'),
      'nes/reject': notify('nes/reject'),
      'document/didOpen': notify('document/didOpen'),
      'document/didChange': notify('document/didChange'),
      'document/didClose': notify('document/didClose'),
      'document/didSave': notify('document/didSave'),
      'document/didFocus': notify('document/didFocus'),

      // An MCP notification from this client's server (type acp) on its way to the v1 agent.
      'mcp/message': async (params) => {
        await this.#v1.sendNotification('mcp/message', v2ToV1MessageMcpNotification(params));
      },

      'proxy/initialize': () => refuseProxy('proxy/initialize'),
      'proxy/successor': () => refuseProxy('proxy/successor'),

      'session/prompt': (params, context) => {
        const session = this.#require(params.sessionId);
        attach(session);
        const { prompt, response } = session.adapter.receivePrompt(params.prompt, {
          client: peer,
          signal: context.signal,
        });
        session.submit(prompt, peer);
        return response;
      },

      'session/cancel': async (params) => {
        await this.#sessions.get(params.sessionId)?.cancel();
      },
    };
    gate.serve(guardSubagents(handlers, find, dropped));

    // The notification form (a conductor forwarding session/cancel, say) is dropped, and reported.
    // (The handler type joins the request's and the notification's, as the method is both.)
    const dropProxyNotification = (): void =>
      this.#lost('proxy/successor', '', 'the v1 bridge does not carry proxy chains (notification dropped)');
    gate.onNotification('proxy/successor', dropProxyNotification as never);

    connection.onClose(() => {
      for (const session of attached) session.unfollow(peer);
      attached.clear();
      this.#clients.delete(connection);
      for (const [serverId, client] of this.#mcpRoutes)
        if (client === connection) this.#mcpRoutes.delete(serverId);
    });
    connection.listen();
    return connection;
  }
}

/** Options of {@link serveV1AgentAsV2}. */
export interface ServeV1AgentAsV2Options extends V1AgentBridgeOptions {
  /** Transport from the v2 client (e.g. `stdioTransport()`). */
  client: Transport;
}

/** Serves the v1 agent behind `agent` to the v2 client on `client`; see {@link V1AgentBridge}. */
export function serveV1AgentAsV2(options: ServeV1AgentAsV2Options): {
  bridge: V1AgentBridge;
  connection: AgentConnection;
} {
  const bridge = new V1AgentBridge(options);
  return { bridge, connection: bridge.serve(options.client) };
}
