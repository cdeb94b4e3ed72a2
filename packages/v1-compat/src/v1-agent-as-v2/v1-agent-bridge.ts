import type { BridgeLossListener } from '../bridge-loss.js';
import type { SessionId } from '@acp-kit/schema';
import type { AgentConnection, RpcError, Transport } from '@acp-kit/sdk';
import type * as V1 from '../generated/v1/types.js';
import { BridgeCore } from './bridge-core.js';
import { ClientLink } from './client-link.js';
import type { V1ClientServicesOptions } from './client-services.js';
import { bridgeHandlers } from './features/index.js';
import { dropProxyNotification } from './features/proxy-chains.js';
import type { IdLedger } from './id-ledger.js';
import { listenToV1Agent } from './v1-agent-handlers.js';
import { guardSubagents } from '@acp-kit/sdk/adapter';

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
/**
 * Serves a v1 agent to v2 clients. The bridge is the v2 agent — sessions, insertion receipts and
 * state updates come from the SDK's adapter seam, an `AdapterSession` per session — and the
 * v1 agent's sessions, prompt turns and updates are translated behind it. Serve any number of v2
 * client connections with {@link V1AgentBridge.serve}. What it holds for every client is its
 * `BridgeCore`; the v1 agent's requests are served in `v1-agent-handlers.ts`; the v2 clients'
 * methods in the feature modules of `features/`.
 */
export class V1AgentBridge {
  readonly #core: BridgeCore;
  /** The handlers of every feature module (`features/`), built once and served to each client. */
  readonly #handlers: ReturnType<typeof bridgeHandlers>;
  #clientCount = 0;
  /** Resolves with the reason once the v1 agent is gone (exited, closed, or wrote garbage). */
  readonly closed: Promise<string>;

  constructor(options: V1AgentBridgeOptions) {
    const core = new BridgeCore(options);
    this.#core = core;
    this.closed = core.closed;
    // A client may change a subagent only as its parent's latest announcement permits (the
    // SDK's guard, as an acp-kit agent applies it): a request is refused -32602 naming the parent,
    // a session/cancel of a child that is not cancellable is dropped and reported. Nothing of
    // either reaches the v1 agent.
    const find = (sessionId: SessionId) => core.sessions.get(sessionId);
    const dropped = (method: string, error: RpcError) => {
      const sessionId = (error.data as { sessionId?: string } | undefined)?.sessionId ?? '';
      core.onLoss?.({ sessionId, in: method, pointer: '/params/sessionId', reason: error.message });
    };
    this.#handlers = guardSubagents(bridgeHandlers(core), find, dropped);
    listenToV1Agent(core);
  }

  /** Closes the connection to the v1 agent and kills the terminals the bridge runs for it. */
  close(): void {
    this.#core.services?.closeAll();
    this.#core.peer.close();
  }

  /**
   * Serves one v2 client connection over `transport`; returns the connection (already listening).
   * The connection's methods go through the SDK's `MethodGate`, as an agent's do: served
   * after `initialize` (-32600 before it), refused -32601 when the v1 agent does not advertise
   * their capability, params with text no store keeps refused -32602. The handlers are the
   * feature modules' (`features/`), each given the {@link ClientLink} of the connection.
   */
  serve(transport: Transport): AgentConnection {
    const core = this.#core;
    const link = new ClientLink(core, transport, `v2-client#${++this.#clientCount}`);
    link.gate.serve(this.#handlers);
    // The notification form (a conductor forwarding session/cancel, say) is dropped, and reported.
    // (The handler type joins the request's and the notification's, as the method is both.)
    const dropNotification = (): void => dropProxyNotification(core);
    link.gate.onNotification('proxy/successor', dropNotification as never);
    link.connection.onClose(() => link.release());
    link.connection.listen();
    return link.connection;
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
