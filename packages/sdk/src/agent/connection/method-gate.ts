import type {
  AgentCapabilities,
  AgentNotificationMap,
  AgentRequestMap,
  AuthMethod,
  ClientCapabilities,
  ClientRequestMap,
} from '@acp-kit/schema';
import type { Connection } from '../../rpc/connection.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { CLIENT_ADVERTISES_IN, isAdvertised, rowOf } from './capability-paths.js';
import type { ClientPeer } from './client-peer.js';
import { type AgentConnection, connectionPeer } from './connection-peer.js';
import {
  type Advertisement,
  type AgentMethodHandlers,
  type GateOf,
  type MethodRefusalData,
  MethodTable,
} from './method-table.js';

export { isAdvertised } from './capability-paths.js';
export type { Advertisement, AgentMethodHandlers, MethodRefusalData } from './method-table.js';

/** The slice of a connection the gate serves its table on (the agent's typed connection). */
type GatedConnection = Pick<
  Connection<AgentRequestMap, AgentNotificationMap, ClientRequestMap, Record<string, never>>,
  'serveTable'
>;

/**
 * The methods a connection may call before it completed `initialize` and any required login (each
 * checks `initialize` itself where it needs it).
 */
export const WAY_IN_AND_OUT: ReadonlySet<string> = new Set([
  'initialize',
  'auth/login',
  'auth/logout',
  // Asked to learn whether a login is needed: never refused for want of one (unstable).
  'auth/status',
]);

/**
 * What a connection must have done before a method runs on it (for the agent: completed
 * `initialize`, and logged in when a login is required), checked by the gate for every request
 * and every notification alike. One admission may serve every connection: each call is given the
 * host of the connection it is about (`O`, see {@link MethodGate}).
 */
export interface Admission<O = unknown> {
  /** Throws the `RpcError` a request for `method` is answered with, unless it may run now. */
  check(method: string, connection: O): void;
  /** Methods not checked (default {@link WAY_IN_AND_OUT}). */
  exempt?: ReadonlySet<string>;
  /** Called with a notification the check refused; it is dropped (a notification has no answer). */
  dropped?(method: string, error: RpcError, connection: O): void;
}

/**
 * The one place an agent decides which methods it offers on a connection: the methods, their
 * checks and what `initialize` advertises come from a {@link MethodTable} (built from the generated
 * method → capability table `METHOD_CAPABILITIES`, shared by every connection of an agent); the
 * gate adds what is this connection's own — the {@link Admission} every request and notification
 * but the exempt ones must pass (a request is answered with its error, a notification is dropped
 * and reported), and the client's capabilities from its `initialize`. Towards the client, it
 * refuses to send a request the client did not advertise the capability for (for example
 * `elicitation/create` to a client without `capabilities.elicitation`).
 *
 * `new MethodGate(connection, configured, admission)` gives the gate a table of its own, filled
 * with {@link MethodGate.serve} (an adapter serving each client connection differently, see
 * {@link MethodGate.adapt}); `new MethodGate(connection, table, admission, host)` shares one
 * (`Agent.serve`), its handlers given `host`.
 */
export class MethodGate<O = unknown> implements GateOf<O> {
  readonly #table: MethodTable<O>;
  readonly #admission: Admission<O> | undefined;
  #client: ClientCapabilities | undefined;
  /** What the table's handlers are given for this connection. */
  readonly host: O;

  constructor(
    connection: GatedConnection,
    configured:
      | MethodTable<O>
      | { capabilities?: AgentCapabilities | undefined; authMethods?: AuthMethod[] | undefined },
    admission?: Admission<O>,
    host?: O,
  ) {
    this.#table = configured instanceof MethodTable ? configured : new MethodTable<O>(configured);
    this.#admission = admission;
    this.host = host as O;
    connection.serveTable(this.#table, this as GateOf<O>);
  }

  /** The table this gate serves (shared, or its own). */
  get table(): MethodTable<O> {
    return this.#table;
  }

  /** See {@link MethodTable.adapt}; on a shared table it changes every connection's. */
  adapt(advertised: Advertisement | undefined): void {
    this.#table.adapt(advertised);
  }

  /** The methods handlers were registered for. */
  get served(): ReadonlySet<string> {
    return this.#table.served;
  }

  /** Registers a request handler in the table (see {@link MethodTable.onRequest}). */
  onRequest<M extends keyof AgentRequestMap & string>(
    method: M,
    handler: NonNullable<AgentMethodHandlers<O>[M]>,
  ): void {
    this.#table.onRequest(method, handler as never);
  }

  /** Registers a notification handler in the table (see {@link MethodTable.onNotification}). */
  onNotification<M extends keyof AgentNotificationMap & string>(
    method: M,
    handler: NonNullable<AgentMethodHandlers<O>[M]>,
  ): void {
    this.#table.onNotification(method, handler as never);
  }

  /** Registers the handlers of a feature module in the table (see {@link MethodTable.serve}). */
  serve(handlers: AgentMethodHandlers<O>): void {
    this.#table.serve(handlers);
  }

  /** What the `initialize` response advertises (see {@link MethodTable.advertisement}). */
  advertisement(): Advertisement {
    return this.#table.advertisement();
  }

  /** The error a request for `method` gets, or undefined when it is served (see {@link MethodTable.refusal}). */
  refusal(method: string): RpcError<MethodRefusalData | { method: string }> | undefined {
    return this.#table.refusal(method);
  }

  /** Records the client's capabilities (the table calls it for `initialize`). */
  noteClient(capabilities: ClientCapabilities | undefined): void {
    this.#client = capabilities;
  }

  /** Throws the admission's error unless `method` may run on this connection now. */
  admit(method: string): void {
    const admission = this.#admission;
    if (admission === undefined || (admission.exempt ?? WAY_IN_AND_OUT).has(method)) return;
    admission.check(method, this.host);
  }

  /** Reports a notification the admission refused. */
  droppedNotification(method: string, error: RpcError): void {
    this.#admission?.dropped?.(method, error, this.host);
  }

  /**
   * The {@link ClientPeer} that stands for this gate's client on `connection` inside sessions: it
   * reads the capabilities the client's `initialize` gave the gate, and refuses locally a request
   * they do not advertise ({@link MethodGate.checkOutgoing}). The one place the two are wired.
   */
  clientPeer(connection: AgentConnection, label: string): ClientPeer {
    return connectionPeer(connection, { label, gate: this });
  }

  /** The client's capabilities from its `initialize` request (undefined before it). */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.#client;
  }

  /**
   * Whether the client may be sent `method`: a baseline method always, a gated one when the
   * client's `initialize` advertised its capability.
   */
  clientServes(method: keyof ClientRequestMap | string): boolean {
    const capability = rowOf(method)?.capability;
    if (capability == null || capability.in !== CLIENT_ADVERTISES_IN) return true;
    return isAdvertised({ capabilities: this.#client ?? {} }, capability);
  }

  /**
   * Refuses locally, before anything is sent, a request the client did not advertise the
   * capability for: the rejection is a -32601 `RpcError` naming the method and the capability.
   */
  checkOutgoing(method: string): void {
    if (this.clientServes(method)) return;
    const capability = rowOf(method)?.capability;
    throw new RpcError(
      ErrorCodes.MethodNotFound,
      `${method} not sent: the client did not advertise ${capability?.pointer.slice(1).replaceAll('/', '.')}`,
      { method, capability: { in: capability?.in, pointer: capability?.pointer } },
    );
  }
}
