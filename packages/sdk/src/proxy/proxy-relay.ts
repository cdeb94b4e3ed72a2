/**
 * One proxy's relay on its connection to the conductor: the initialization state (waiting,
 * initializing, ready) and dialect, and the routing of every other message — from the client's
 * side wrapped to the successor, from the successor unwrapped to the client's side — through the
 * interceptor of its method, if any.
 */
import type { InitializeRequest, InitializeResponse } from '@acp-kit/schema';
import type { Connection } from '../rpc/connection.js';
import type { RpcId } from '../rpc/messages.js';
import { type ArrivalTicket, ArrivalOrder } from './arrival-order.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ExtensionMethod } from '../rpc/method-maps.js';
import {
  isSacpProxyInitialize,
  PROXY_INITIALIZE_METHOD,
  type ProxyDialect,
  SUCCESSOR_METHODS,
  type SuccessorEnvelope,
  unwrappedParams,
  wrap,
} from './dialect.js';
import { checkedInitializeResult, checkProtocolVersionKept } from './proxy-initialization.js';
import type { Interceptor, ProxyDirection, ProxyEvent, ProxyOptions } from './serve-proxy.js';

const NEVER_ABORTED = new AbortController().signal;

/** A method sent untyped: the proxy forwards whatever it is given. */
function untyped(method: string): ExtensionMethod {
  return method as ExtensionMethod;
}

type Interceptors = Record<string, Interceptor<unknown, unknown> | undefined>;

/** The handlers {@link serveProxy} installs, with the state they share. */
export class ProxyRelay {
  /** The dialect the conductor initialized the proxy with; undefined before that. */
  dialect: ProxyDialect | undefined;
  #state: 'waiting' | 'initializing' | 'ready' = 'waiting';
  readonly #connection: Connection;
  readonly #options: ProxyOptions;
  readonly #problem: (message: string) => void;
  readonly #toAgent: Interceptors;
  readonly #toClient: Interceptors;
  /** What the successor sends, kept in order on its way to the client's side (see {@link ArrivalOrder}). */
  readonly #clientward: ArrivalOrder;
  /** What the client's side sends, kept in order on its way to the successor. */
  readonly #agentward: ArrivalOrder;

  constructor(connection: Connection, options: ProxyOptions) {
    this.#connection = connection;
    const fromSuccessor = (method: string): boolean =>
      method === this.#successor().request || method === this.#successor().notification;
    this.#clientward = new ArrivalOrder(connection, connection, fromSuccessor);
    this.#agentward = new ArrivalOrder(connection, connection, (method) => !fromSuccessor(method));
    this.#options = options;
    this.#problem = options.onProblem ?? (() => {});
    this.#toAgent = (options.toAgent ?? {}) as Interceptors;
    this.#toClient = (options.toClient ?? {}) as Interceptors;
  }

  /**
   * Answers a request from the conductor (its `onUnhandledRequest` handler, which the connection
   * calls synchronously: the request's place in the relay's order is claimed here).
   */
  request(method: string, params: unknown, id: RpcId, signal: AbortSignal): Promise<unknown> {
    const fromSuccessor = method === this.#successor().request;
    const ticket = (fromSuccessor ? this.#clientward : this.#agentward).claim();
    try {
      const answer = this.#request(method, params, id, signal, ticket);
      const done = (): void => {
        ticket.skip();
        this.#clientward.settled(id);
        this.#agentward.settled(id);
      };
      answer.then(done, done);
      return answer;
    } catch (error) {
      ticket.skip();
      throw error;
    }
  }

  #request(
    method: string,
    params: unknown,
    id: RpcId,
    signal: AbortSignal,
    ticket: ArrivalTicket,
  ): Promise<unknown> {
    if (method === PROXY_INITIALIZE_METHOD || isSacpProxyInitialize(method, params)) {
      ticket.skip(); // the first message: nothing was read before it
      return this.#initialize(method, params as InitializeRequest, signal);
    }
    if (method === 'initialize') {
      throw new RpcError(
        ErrorCodes.InvalidRequest,
        'initialize: this component is an ACP proxy and has no agent of its own; a conductor must initialize it with proxy/initialize',
      );
    }
    if (this.#state === 'waiting') throw notInitialized(method);
    if (method === this.#successor().request) {
      const envelope = params as SuccessorEnvelope;
      const inner = envelope.method;
      return this.#pass(
        'toClient',
        'request',
        inner,
        unwrappedParams(envelope),
        (p) =>
          ticket.send(() =>
            this.#agentward.request(id, () => this.#connection.sendRequest(untyped(inner), p, { signal })),
          ),
        signal,
      );
    }
    if (this.#state !== 'ready') throw notInitialized(method);
    return this.#pass(
      'toAgent',
      'request',
      method,
      params,
      (p) => ticket.send(() => this.#clientward.request(id, () => this.#requestSuccessor(method, p, signal))),
      signal,
    );
  }

  /** Forwards a notification from the conductor (its `onUnhandledNotification` handler). */
  async notification(method: string, params: unknown): Promise<void> {
    const fromSuccessor = method === this.#successor().notification;
    const ticket = (fromSuccessor ? this.#clientward : this.#agentward).claim();
    try {
      await this.#notification(method, params, ticket);
    } finally {
      ticket.skip();
    }
  }

  async #notification(method: string, params: unknown, ticket: ArrivalTicket): Promise<void> {
    if (this.#state === 'waiting') {
      this.#problem(`${method} notification before proxy/initialize dropped`);
      return;
    }
    if (method === this.#successor().notification && this.dialect !== undefined) {
      const envelope = params as SuccessorEnvelope;
      const inner = envelope.method;
      await this.#pass(
        'toClient',
        'notification',
        inner,
        unwrappedParams(envelope),
        (p) => ticket.send(() => this.#connection.sendNotification(untyped(inner), p)),
        NEVER_ABORTED,
      );
      return;
    }
    await this.#pass(
      'toAgent',
      'notification',
      method,
      params,
      (p) => ticket.send(() => this.#notifySuccessor(method, p)),
      NEVER_ABORTED,
    );
  }

  /** The proxy's initialization: the successor's `initialize` result, checked and shaped. */
  async #initialize(
    method: string,
    params: InitializeRequest,
    signal: AbortSignal,
  ): Promise<InitializeResponse> {
    if (this.#state !== 'waiting') {
      throw new RpcError(
        ErrorCodes.InvalidRequest,
        `${method}: this proxy was already initialized (a proxy is initialized once per connection)`,
      );
    }
    this.#state = 'initializing';
    this.dialect = method === PROXY_INITIALIZE_METHOD ? 'acp' : 'sacp';
    try {
      // The sacp dialect keeps `_meta.proxy` on the forwarded initialize: its conductor forwards
      // it to the next component as is, and that marker is what makes a next proxy a proxy.
      const request = params;
      const result = await this.#pass(
        'toAgent',
        'request',
        'initialize',
        request,
        (p) => this.#requestSuccessor('initialize', p, signal),
        signal,
      );
      const received = checkedInitializeResult(result);
      const options = this.#options;
      let answer = options.initialize ? await options.initialize(received, request) : received;
      checkProtocolVersionKept(received, answer);
      if (this.dialect === 'sacp') answer = { ...answer, _meta: { ...(answer._meta ?? {}), proxy: true } };
      this.#state = 'ready';
      return answer;
    } catch (error) {
      this.#state = 'waiting';
      this.dialect = undefined;
      throw error;
    }
  }

  #observe(event: ProxyEvent): void {
    try {
      this.#options.observe?.(event);
    } catch (error) {
      this.#problem(`an observer threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Runs the interceptor of a message (or forwards it as is). */
  #pass(
    direction: ProxyDirection,
    kind: 'request' | 'notification',
    method: string,
    params: unknown,
    forward: (params: unknown) => Promise<unknown>,
    signal: AbortSignal,
  ): Promise<unknown> {
    this.#observe({ direction, kind, method, params });
    const interceptor = (direction === 'toAgent' ? this.#toAgent : this.#toClient)[method];
    if (interceptor === undefined) return forward(params);
    return Promise.resolve(interceptor(params, forward, { method, direction, kind, signal }));
  }

  #successor(): { request: string; notification: string } {
    return SUCCESSOR_METHODS[this.dialect ?? 'acp'];
  }

  /** Sends a request to the successor, wrapped; the wrapped result or error comes back unchanged. */
  #requestSuccessor(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    return this.#connection.sendRequest(untyped(this.#successor().request), wrap(method, params), { signal });
  }

  #notifySuccessor(method: string, params: unknown): Promise<void> {
    return this.#connection.sendNotification(untyped(this.#successor().notification), wrap(method, params));
  }
}

function notInitialized(method: string): RpcError {
  return new RpcError(
    ErrorCodes.InvalidRequest,
    `${method} before proxy/initialize: the conductor must initialize this proxy first`,
  );
}
