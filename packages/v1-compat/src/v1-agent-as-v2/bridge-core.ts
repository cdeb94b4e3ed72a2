import type { BridgeLossListener } from '../bridge-loss.js';
import type {
  SessionId,
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
} from '@acp-kit/sdk';
import { v2ToV1InitializeRequest } from '../generated/compat/converters.js';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../generated/v1/methods.js';
import type * as V1 from '../generated/v1/types.js';
import { reportDropped, TO_V1_AGENT_ROUTES } from '../v2-agent-as-v1/v1-routes.js';
import { v1SchemaValidator } from '../v1-validator.js';
import { WrappedPeer } from '../wrapped-peer.js';
import { BridgedSession } from './bridged-session.js';
import { ClientServices } from './client-services.js';
import { type IdLedger, MemoryIdLedger } from './id-ledger.js';
import { lenientResults } from './lenient-results.js';
import { MessageTracker } from './message-tracker.js';
import { SessionPaths } from './session-paths.js';
import type { V1AgentBridgeOptions } from './v1-agent-bridge.js';
import { AdapterSession, cancellableAfter, McpBindingErrors } from '@acp-kit/sdk/adapter';

/** The bridge's connection to the v1 agent: it handles v1 client methods and calls v1 agent methods. */
export type V1ClientConnection = Connection<
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

/**
 * What one `V1AgentBridge` holds for every v2 client it serves: the connection to the v1 agent,
 * the sessions opened through it, the v2 clients and the MCP servers they declared, and the calls
 * to the v1 agent the feature modules (`features/`) make. Internal to the bridge: the package
 * exports `V1AgentBridge`, never this.
 */
export class BridgeCore {
  /** The connection to the v1 agent (its handlers: `v1-agent-handlers.ts`). */
  readonly v1: V1ClientConnection;
  readonly peer: WrappedPeer;
  readonly onLoss: BridgeLossListener | undefined;
  readonly sessions = new Map<SessionId, BridgedSession>();
  /** The v1 client services the bridge serves itself; undefined when turned off. */
  readonly services: ClientServices | undefined;
  /** The v2 client connections that completed initialize (auth/status_update goes to each). */
  readonly clients = new Set<AgentConnection>();
  /** Which v2 client connection provides each MCP server of type acp, by serverId. */
  readonly mcpRoutes = new Map<string, AgentConnection>();
  /** The session of the v1 message being received (for the loss report of an invalid update). */
  receivingSession = '';
  /** Resolves with the reason once the v1 agent is gone (exited, closed, or wrote garbage). */
  readonly closed: Promise<string>;
  readonly #history = new MemorySessionLog();
  readonly #ledger: IdLedger;
  #initialize: Promise<V1.InitializeResponse> | undefined;
  /**
   * Updates for sessions the bridge has not opened yet. A v1 agent may send one right behind its
   * `session/new` or `session/load` answer (available commands, say), before the bridge has
   * processed that answer; they are applied when the session opens. Bounded, oldest dropped.
   */
  readonly #orphans = new Map<SessionId, V1.SessionUpdate[]>();
  /** The v1 agent's `agentInfo`, once its initialize answer is in. */
  #agentInfo: V1.Implementation | undefined;

  constructor(options: V1AgentBridgeOptions) {
    this.#ledger = options.ledger ?? new MemoryIdLedger();
    this.onLoss = options.onLoss;
    if (options.initialized !== undefined) {
      this.#initialize = Promise.resolve(options.initialized);
      this.#agentInfo = options.initialized.agentInfo ?? undefined;
    }
    // Liberal where the official SDK is (a null result for session/load, say): taken, and warned about.
    const validator = lenientResults(v1SchemaValidator, ({ method, pointer, reason }) =>
      this.onLoss?.({
        sessionId: '',
        in: method,
        pointer,
        reason: `${this.agentName()} ${reason}`,
        warning: true,
      }),
    );
    this.v1 = new Connection(options.agent, { validator });
    this.peer = new WrappedPeer(options.name ?? 'v1 agent', this.v1);
    if (options.clientServices !== false) {
      this.services = new ClientServices(
        (sessionId) => this.sessions.get(sessionId),
        options.clientServices === true || options.clientServices === undefined ? {} : options.clientServices,
      );
      this.services.register(this.v1);
    }
    this.closed = this.peer.closed;
  }

  /**
   * A `subagent_update` naming a session the bridge has not opened announces a child: it is opened
   * now, before its own updates can arrive, and the parent's clients follow it (returned, to wait
   * for its announcement). Each one, first or later, sets what clients may do to the child: its
   * `capabilities` by the upsert rules, read by the subagent guard.
   */
  child(parent: BridgedSession, update: V1.SubagentUpdate): BridgedSession | undefined {
    let child = this.sessions.get(update.sessionId);
    const opened = child === undefined;
    if (child === undefined) {
      child = this.open(update.sessionId, update.cwd ?? parent.agentSession.cwd);
      // A subagent's files are its own cwd's and its parent's.
      child.paths = new SessionPaths(child.cwd, parent.paths.roots);
      parent.adopt(child);
    }
    if (child.family.parent === parent)
      child.family.cancellable = cancellableAfter(child.family.cancellable, update.capabilities);
    return opened ? child : undefined;
  }

  /** How warnings name the v1 agent: its agentInfo name and version when it gave them. */
  agentName(): string {
    const info = this.#agentInfo;
    return info === undefined ? `the ${this.peer.name}` : `the v1 agent ${info.name} ${info.version}`;
  }

  /** Reports something that is not about one session (sessionId ''). */
  lost(method: string, pointer: string, reason: string): void {
    this.onLoss?.({ sessionId: '', in: method, pointer, reason });
  }

  /** The v2 client connection that provides the MCP server `serverId`; -33001 when none does. */
  mcpRoute(serverId: string, method: string): AgentConnection {
    const client = this.mcpRoutes.get(serverId);
    if (client !== undefined) return client;
    this.lost(method, '/params/serverId', `no v2 client declared the MCP server ${JSON.stringify(serverId)}`);
    throw new RpcError(
      McpBindingErrors.ServerUnavailable,
      `No MCP server ${JSON.stringify(serverId)} was declared through the bridge`,
      {
        serverId,
      },
    );
  }

  /** Keeps an update for a session not opened yet (see `#orphans`). */
  holdOrphan(sessionId: SessionId, update: V1.SessionUpdate): void {
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

  /**
   * Sends a v2 client's request to the v1 agent under its v1 name, params and result converted by
   * the generated mapping (`TO_V1_AGENT_ROUTES`), as the codec routes the other direction.
   */
  async relay(method: string, params: unknown): Promise<unknown> {
    const route = TO_V1_AGENT_ROUTES.get(method);
    if (route === undefined) throw new Error(`the v1 ⇄ v2 mapping has no v1 counterpart of ${method}`);
    const call = { method, sessionId: (params as { sessionId?: unknown } | null | undefined)?.sessionId };
    reportDropped(this.onLoss, route.paramsDropped, params, '/params', call);
    const v1Params = route.params === undefined ? params : route.params(params as never);
    const result: unknown = await this.call(() => this.v1.sendRequest(route.v1 as never, v1Params as never));
    reportDropped(this.onLoss, route.resultDropped, result, '/result', call);
    return route.result === undefined ? result : route.result(result as never);
  }

  /** Relays a v2 client's notification to the v1 agent through the generated mapping. */
  async relayNotification(method: string, params: unknown): Promise<void> {
    const route = TO_V1_AGENT_ROUTES.get(method);
    if (route === undefined) throw new Error(`the v1 ⇄ v2 mapping has no v1 counterpart of ${method}`);
    const call = { method, sessionId: (params as { sessionId?: unknown } | null | undefined)?.sessionId };
    reportDropped(this.onLoss, route.paramsDropped, params, '/params', call);
    const v1Params = route.params === undefined ? params : route.params(params as never);
    await this.v1.sendNotification(route.v1 as never, v1Params as never);
  }

  /** Runs a call to the v1 agent; its failure becomes the error a v2 client is answered with. */
  async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.peer.toBridgeError(error);
    }
  }

  /**
   * Initializes the v1 agent once, with the first v2 client's info. The file-system and terminal
   * capabilities are the bridge's own (v2 clients serve neither): present unless
   * `V1AgentBridgeOptions.clientServices` turned them off. It always
   * advertises v1's unstable `plan` and `subagents`: the one v1 initialize serves every v2 client,
   * v2 has no such client capability (a v2 client takes plan, subagent and session-message updates
   * without advertising anything), and a v2 client that did not opt in to the unstable surface
   * keeps those kinds as unknown updates, as v2 requires of every receiver.
   */
  v1Capabilities(first?: V2InitializeRequest): Promise<V1.InitializeResponse> {
    const asV1 = first === undefined ? undefined : v2ToV1InitializeRequest(first);
    const clientInfo = asV1 === undefined ? BRIDGE_INFO : asV1.clientInfo;
    // Next edit suggestions: the first client's suggestion kinds and position encodings, as the
    // agent may send a kind beyond edit, and pick an encoding, only from what the client offered.
    const nes = asV1?.clientCapabilities?.nes;
    const encodings = asV1?.clientCapabilities?.positionEncodings;
    this.#initialize ??= this.call(() =>
      this.v1.sendRequest('initialize', {
        protocolVersion: 1,
        clientCapabilities: {
          ...(this.services?.capabilities ?? {
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
  open(sessionId: SessionId, cwd: string, epoch = ''): BridgedSession {
    const existing = this.sessions.get(sessionId);
    if (existing) return existing;
    // The SDK session checks message IDs against the history store, which must know the session:
    // `ready` settles once it does.
    // Unstable update kinds (subagents, session messages, plan removals) come from the v1 agent
    // only because the bridge advertised plan and subagents; they reach v2 clients as they are.
    const adapter = new AdapterSession({ sessionId, cwd, history: this.#history, unstable: true });
    const link = {
      prompt: (params: V1.PromptRequest) => this.v1.sendRequest('session/prompt', params),
      cancel: (params: V1.CancelNotification) => this.v1.sendNotification('session/cancel', params),
      toBridgeError: (error: unknown) => this.peer.toBridgeError(error),
      ...(this.onLoss === undefined ? {} : { onLoss: this.onLoss }),
    };
    const tracker = new MessageTracker(sessionId, this.#ledger, {
      epoch,
      // A replay that differs from what was seen live is reported, with what differed.
      onDivergence: ({ reason }) =>
        this.onLoss?.({
          sessionId,
          in: 'session/load',
          pointer: '',
          reason: `${this.agentName()}: ${reason}`,
          warning: true,
        }),
    });
    const session = new BridgedSession(adapter, tracker, link);
    this.sessions.set(sessionId, session);
    for (const update of this.#orphans.get(sessionId) ?? []) session.fromV1(update);
    this.#orphans.delete(sessionId);
    return session;
  }

  /** What a session/new or session/resume answer says about the session's options and commands. */
  settings(session: BridgedSession): { configOptions?: V2ConfigOption[]; availableCommands?: V2Command[] } {
    const configOptions = session.options.v2();
    return {
      ...(configOptions === undefined ? {} : { configOptions }),
      ...(session.commands === undefined ? {} : { availableCommands: session.commands }),
    };
  }

  /** A resume ends with the session's current activity, so the client does not take it for idle. */
  async current(session: BridgedSession, peer: ClientPeer): Promise<void> {
    await session.adapter.sendStateTo(peer);
  }

  /**
   * The session was closed, archived or deleted on the v1 agent: its clients are let go and it is
   * dropped, and so are the subagents it announced (no client follows a child through a parent it
   * no longer has; a resume of the parent with replay announces them again).
   */
  forget(sessionId: SessionId): void {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return;
    this.sessions.delete(sessionId);
    this.services?.closeSession(sessionId);
    session.adapter.close();
    for (const child of session.children) if (child.family.parent === session) this.forget(child.id);
  }

  /** The session the bridge holds, or -32002. */
  require(sessionId: SessionId): BridgedSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId });
    return session;
  }
}
