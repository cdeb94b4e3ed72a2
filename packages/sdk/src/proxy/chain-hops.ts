/**
 * How the conductor moves one message one hop along its chain: down towards the agent (unwrapped,
 * an `initialize` becoming `proxy/initialize` for a proxy), up towards the client (wrapped in
 * `proxy/successor` for the previous proxy, plain to the client), and what a broken chain answers:
 * the component that failed and why, instead of a bare "connection closed".
 */
import type { Connection } from '../rpc/connection.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { RpcId } from '../rpc/messages.js';
import type { ExtensionMethod } from '../rpc/method-maps.js';
import { type ArrivalTicket, ArrivalOrder } from './arrival-order.js';
import { PROXY_INITIALIZE_METHOD, PROXY_SUCCESSOR_METHOD, wrap } from './dialect.js';
import type { ChainComponent, ChainRefusal, ConductorEnd } from './serve-conductor.js';

/** How a conductor's run ended because a component failed. */
export type ComponentFailure = Extract<ConductorEnd, { reason: 'component-failed' }>;

/** A method sent untyped: the conductor forwards whatever it is given. */
function untyped(method: string): ExtensionMethod {
  return method as ExtensionMethod;
}

/** One conductor's chain: the client, the components in order (proxies, then the agent) and their state. */
export class ChainHops {
  /** The index of the agent, the last component. */
  readonly last: number;
  /** Set once, by the first component that failed. */
  failure: ComponentFailure | undefined;
  /** Settles when the client closed its connection or a component failed. */
  readonly ended: Promise<ConductorEnd>;
  #settle: (end: ConductorEnd) => void = () => {};
  /**
   * Per component, the order of what it sends towards the client (read on its connection, written
   * to the previous proxy's or the client's), and of what reaches it from the client's side (read
   * on the client's or the previous proxy's connection): see {@link ArrivalOrder}.
   */
  readonly clientward: readonly ArrivalOrder[];
  readonly agentward: readonly ArrivalOrder[];

  constructor(
    readonly client: Connection,
    readonly components: readonly ChainComponent[],
    readonly connections: readonly Connection[],
    readonly onRefused: ((refusal: ChainRefusal) => void) | undefined,
  ) {
    this.last = components.length - 1;
    const before = (index: number): Connection => (index === 0 ? client : connections[index - 1]!);
    this.clientward = connections.map(
      (connection, index) =>
        new ArrivalOrder(connection, before(index), (method) =>
          index === this.last ? true : method !== PROXY_SUCCESSOR_METHOD,
        ),
    );
    this.agentward = connections.map(
      (connection, index) =>
        new ArrivalOrder(before(index), connection, (method) =>
          index === 0 ? true : method === PROXY_SUCCESSOR_METHOD,
        ),
    );
    this.ended = new Promise<ConductorEnd>((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Settles {@link ended} (only its first call counts). */
  settle(end: ConductorEnd): void {
    this.#settle(end);
  }

  /** Why a request to component `index` failed, in words the client can act on. */
  chainError(index: number, method: string, error: unknown): RpcError {
    if (error instanceof RpcError && error.code !== ErrorCodes.ConnectionClosed) return error;
    const what = this.failure?.message ?? (error instanceof Error ? error.message : String(error));
    const component = this.failure?.component ?? this.components[index]!.name;
    return new RpcError(
      ErrorCodes.InternalError,
      `the proxy chain is broken: ${what} (before it answered ${method})`,
      { component },
    );
  }

  /**
   * Sends a request to component `index`, unwrapped (towards the agent), when its turn comes
   * (`ticket`); `onBehalfOf` is the id of the request it forwards, whose answer its result becomes.
   */
  async down(
    index: number,
    method: string,
    params: unknown,
    signal: AbortSignal,
    ticket: ArrivalTicket,
    onBehalfOf: RpcId,
  ): Promise<unknown> {
    const wire = method === 'initialize' && index < this.last ? PROXY_INITIALIZE_METHOD : method;
    const connection = this.connections[index]!;
    try {
      return await ticket.send(() =>
        this.clientward[index]!.request(onBehalfOf, () =>
          connection.sendRequest(untyped(wire), params, { signal }),
        ),
      );
    } catch (error) {
      throw this.chainError(index, method, error);
    }
  }

  /** Sends a notification to component `index`, unwrapped, when its turn comes. */
  downNotify(index: number, method: string, params: unknown, ticket: ArrivalTicket): Promise<void> {
    return ticket
      .send(() => this.connections[index]!.sendNotification(untyped(method), params))
      .catch(() => {});
  }

  /**
   * Sends a request from component `index` towards the client, when its turn comes: to the
   * previous proxy, wrapped, or to the client; `onBehalfOf` is the id of the component's request.
   */
  async up(
    index: number,
    method: string,
    params: unknown,
    signal: AbortSignal,
    ticket: ArrivalTicket,
    onBehalfOf: RpcId,
  ): Promise<unknown> {
    const order = this.agentward[index]!;
    if (index === 0) {
      try {
        return await ticket.send(() =>
          order.request(onBehalfOf, () => this.client.sendRequest(untyped(method), params, { signal })),
        );
      } catch (error) {
        if (error instanceof RpcError && error.code !== ErrorCodes.ConnectionClosed) throw error;
        throw new RpcError(ErrorCodes.InternalError, `the client is gone (before it answered ${method})`);
      }
    }
    const previous = this.connections[index - 1]!;
    try {
      return await ticket.send(() =>
        order.request(onBehalfOf, () =>
          previous.sendRequest(untyped(PROXY_SUCCESSOR_METHOD), wrap(method, params), { signal }),
        ),
      );
    } catch (error) {
      throw this.chainError(index - 1, method, error);
    }
  }

  /** Sends a notification from component `index` towards the client, when its turn comes. */
  upNotify(index: number, method: string, params: unknown, ticket: ArrivalTicket): Promise<void> {
    return ticket
      .send(() =>
        index === 0
          ? this.client.sendNotification(untyped(method), params)
          : this.connections[index - 1]!.sendNotification(
              untyped(PROXY_SUCCESSOR_METHOD),
              wrap(method, params),
            ),
      )
      .catch(() => {});
  }

  /** Reports a chain method that is not forwarded; for a request, the error it is answered with. */
  refuse(from: string, method: string, kind: 'request' | 'notification', reason: string): RpcError {
    try {
      this.onRefused?.({ from, method, kind, reason });
    } catch {
      // A failing log hook must not break the chain.
    }
    return new RpcError(ErrorCodes.MethodNotFound, `${method} ${reason}`);
  }

  /**
   * Breaks the chain because component `index` failed (only the first failure counts): every
   * request still waiting on it fails now, with the reason, instead of hanging.
   */
  fail(index: number, message: string): void {
    if (this.failure !== undefined) return;
    this.failure = { reason: 'component-failed', component: this.components[index]!.name, message };
    for (const other of this.connections) other.close(new RpcError(ErrorCodes.ConnectionClosed, message));
    this.settle(this.failure);
  }
}
