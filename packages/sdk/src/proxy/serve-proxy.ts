import {
  type AgentNotificationMap,
  type AgentRequestMap,
  type ClientNotificationMap,
  type ClientRequestMap,
  type InitializeRequest,
  type InitializeResponse,
  validate,
} from '@acp-kit/schema';
import { Connection } from '../rpc/connection.js';
import type { ConnectionOptions } from '../rpc/connection-options.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ExtensionMethod } from '../rpc/method-maps.js';
import type { Transport } from '../rpc/transport.js';
import {
  isSacpProxyInitialize,
  PROXY_INITIALIZE_METHOD,
  type ProxyDialect,
  SUCCESSOR_METHODS,
  type SuccessorEnvelope,
  unwrappedParams,
  wrap,
} from './dialect.js';
import { envelopeValidator } from './envelope-validator.js';

/**
 * Which way a message travels through a proxy: `toAgent` from the client's side (the proxy's
 * predecessor) towards the agent (its successor), `toClient` the other way.
 */
export type ProxyDirection = 'toAgent' | 'toClient';

/** What an interceptor learns besides the params. */
export interface InterceptContext {
  /** The wrapped message's method. */
  readonly method: string;
  /** Which way it travels. */
  readonly direction: ProxyDirection;
  /** Whether it is a request (it has a result) or a notification. */
  readonly kind: 'request' | 'notification';
  /** Aborted when the request is cancelled or the connection closes; never aborted for a notification. */
  readonly signal: AbortSignal;
}

/**
 * Intercepts one method travelling one way. `forward` sends the (possibly changed) params on and
 * resolves with the result of the next hop (for a notification, once it was handed over); the
 * interceptor's return value is this hop's result. An interceptor may also answer by itself and
 * never call `forward`, or call it more than once (a context proxy running an extra prompt first).
 * A thrown {@link RpcError} is the answer's error, as is the next hop's error when it rejects.
 */
export type Interceptor<P, R> = (
  params: P,
  forward: (params: P) => Promise<R>,
  context: InterceptContext,
) => R | Promise<R>;

type RequestInterceptors<M extends { [K in keyof M]: { params: unknown; result: unknown } }> = {
  readonly [K in keyof M]?: Interceptor<M[K]['params'], M[K]['result']>;
};
type NotificationInterceptors<M> = { readonly [K in keyof M]?: Interceptor<M[K], void> };

/**
 * The chain's own methods, which the proxy answers or unwraps itself and never hands to an
 * interceptor. `proxy/successor` is in both generated maps of each side (a request and a
 * notification both ways), which would make its key an interceptor no function satisfies.
 */
type ChainMethod = 'proxy/initialize' | 'proxy/successor';

/** Interceptors of messages travelling towards the agent, by method (what an agent receives). */
export type ToAgentInterceptors = RequestInterceptors<Omit<AgentRequestMap, ChainMethod>> &
  NotificationInterceptors<Omit<AgentNotificationMap, ChainMethod>>;
/** Interceptors of messages travelling towards the client, by method (what a client receives). */
export type ToClientInterceptors = RequestInterceptors<Omit<ClientRequestMap, ChainMethod>> &
  NotificationInterceptors<Omit<ClientNotificationMap, ChainMethod>>;

/** One message a proxy saw, as it arrived (before any interceptor changed it). */
export interface ProxyEvent {
  readonly direction: ProxyDirection;
  readonly kind: 'request' | 'notification';
  readonly method: string;
  readonly params: unknown;
}

/** Options of {@link serveProxy}. */
export interface ProxyOptions {
  /** Interceptors of messages from the client's side; every other message is forwarded unchanged. */
  readonly toAgent?: ToAgentInterceptors;
  /** Interceptors of messages from the agent's side; every other message is forwarded unchanged. */
  readonly toClient?: ToClientInterceptors;
  /**
   * Shapes the answer to the proxy's initialization from the successor's `initialize` result
   * (already validated as an InitializeResponse): the capabilities of the chain from this proxy
   * onward. It must keep `protocolVersion`; an answer that changes it is refused -32603.
   */
  readonly initialize?: (
    result: InitializeResponse,
    request: InitializeRequest,
  ) => InitializeResponse | Promise<InitializeResponse>;
  /** Sees every message that crosses the proxy, both ways, before interceptors run. */
  readonly observe?: (event: ProxyEvent) => void;
  /** Irregularities worth a log line (a notification dropped before initialization, a listener that threw). */
  readonly onProblem?: (message: string) => void;
  /** Limits of the connection to the conductor (message size, outgoing buffer). Its validator is the proxy's own. */
  readonly connection?: Omit<ConnectionOptions, 'validator'>;
}

/** A proxy served on one connection to its conductor. */
export interface ServedProxy {
  /** The connection to the conductor. */
  readonly connection: Connection;
  /** The dialect the conductor initialized the proxy with; undefined before that. */
  readonly dialect: ProxyDialect | undefined;
  /** Settles with the close reason once the connection to the conductor has closed. */
  readonly closed: Promise<RpcError>;
  /** Closes the connection. */
  close(): void;
}

const NEVER_ABORTED = new AbortController().signal;

/** A method sent untyped: the proxy forwards whatever it is given. */
function untyped(method: string): ExtensionMethod {
  return method as ExtensionMethod;
}

/**
 * Serves an ACP proxy on `transport`, its connection to a conductor (stdio when the conductor
 * spawned it). The conductor initializes it with `proxy/initialize` (or, in the sacp dialect of
 * `@thinkwell/conductor`, `initialize` with `_meta.proxy: true`); the proxy forwards an
 * `initialize` to its successor through `proxy/successor` and answers with the successor's result,
 * validated and shaped by `options.initialize`. After that every message from the client's side is
 * forwarded to the successor wrapped in `proxy/successor`, and every message the conductor delivers
 * from the successor is forwarded to the client's side unwrapped — unchanged, unless an interceptor
 * of its method changes it. Results and errors come back unchanged; cancelling a request cancels
 * the one this proxy sent for it (cancellation is hop-local).
 *
 * Refused, with the connection kept open: a plain `initialize` (-32600: a proxy has no agent of
 * its own), a second initialization (-32600), any other request before the initialization (-32600,
 * naming the method), a malformed envelope (-32602 at its pointer), a successor `initialize`
 * result that is not an InitializeResponse (-32603 at its pointer). A notification before the
 * initialization is dropped and reported through `onProblem`.
 */
export function serveProxy(transport: Transport, options: ProxyOptions = {}): ServedProxy {
  const connection = new Connection(transport, { ...options.connection, validator: envelopeValidator });
  const problem = options.onProblem ?? (() => {});
  const toAgent = (options.toAgent ?? {}) as Record<string, Interceptor<unknown, unknown> | undefined>;
  const toClient = (options.toClient ?? {}) as Record<string, Interceptor<unknown, unknown> | undefined>;
  let dialect: ProxyDialect | undefined;
  let state: 'waiting' | 'initializing' | 'ready' = 'waiting';

  const observe = (event: ProxyEvent): void => {
    try {
      options.observe?.(event);
    } catch (error) {
      problem(`an observer threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  /** Runs the interceptor of a message (or forwards it as is). */
  const pass = (
    direction: ProxyDirection,
    kind: 'request' | 'notification',
    method: string,
    params: unknown,
    forward: (params: unknown) => Promise<unknown>,
    signal: AbortSignal,
  ): Promise<unknown> => {
    observe({ direction, kind, method, params });
    const interceptor = (direction === 'toAgent' ? toAgent : toClient)[method];
    if (interceptor === undefined) return forward(params);
    return Promise.resolve(interceptor(params, forward, { method, direction, kind, signal }));
  };

  const successor = (): { request: string; notification: string } => SUCCESSOR_METHODS[dialect ?? 'acp'];
  /** Sends a request to the successor, wrapped; the wrapped result or error comes back unchanged. */
  const requestSuccessor = (method: string, params: unknown, signal: AbortSignal): Promise<unknown> =>
    connection.sendRequest(untyped(successor().request), wrap(method, params), { signal });
  const notifySuccessor = (method: string, params: unknown): Promise<void> =>
    connection.sendNotification(untyped(successor().notification), wrap(method, params));

  const initialize = async (method: string, params: InitializeRequest, signal: AbortSignal) => {
    if (state !== 'waiting') {
      throw new RpcError(
        ErrorCodes.InvalidRequest,
        `${method}: this proxy was already initialized (a proxy is initialized once per connection)`,
      );
    }
    state = 'initializing';
    dialect = method === PROXY_INITIALIZE_METHOD ? 'acp' : 'sacp';
    try {
      // The sacp dialect keeps `_meta.proxy` on the forwarded initialize: its conductor forwards
      // it to the next component as is, and that marker is what makes a next proxy a proxy.
      const request = params;
      const result = await pass(
        'toAgent',
        'request',
        'initialize',
        request,
        (p) => requestSuccessor('initialize', p, signal),
        signal,
      );
      const checked = validate('InitializeResponse', result);
      if (!checked.ok) {
        const first = checked.issues[0];
        const pointer = `/result${first?.pointer ?? ''}`;
        const expected = first?.expected ?? first?.message ?? 'an InitializeResponse';
        throw new RpcError(
          ErrorCodes.InternalError,
          `the successor's initialize result is not an InitializeResponse at ${pointer}: expected ${expected}`,
          {
            pointer,
            expected,
            issues: checked.issues.map((i) => ({ ...i, pointer: `/result${i.pointer}` })),
          },
        );
      }
      const received = result as InitializeResponse;
      let answer = options.initialize ? await options.initialize(received, request) : received;
      if (answer.protocolVersion !== received.protocolVersion) {
        throw new RpcError(
          ErrorCodes.InternalError,
          `the proxy changed protocolVersion from ${received.protocolVersion} to ${answer.protocolVersion}; a proxy must keep its successor's`,
        );
      }
      if (dialect === 'sacp') answer = { ...answer, _meta: { ...(answer._meta ?? {}), proxy: true } };
      state = 'ready';
      return answer;
    } catch (error) {
      state = 'waiting';
      dialect = undefined;
      throw error;
    }
  };

  const notInitialized = (method: string): RpcError =>
    new RpcError(
      ErrorCodes.InvalidRequest,
      `${method} before proxy/initialize: the conductor must initialize this proxy first`,
    );

  connection.onUnhandledRequest((method, params, context) => {
    if (method === PROXY_INITIALIZE_METHOD || isSacpProxyInitialize(method, params)) {
      return initialize(method, params as InitializeRequest, context.signal);
    }
    if (method === 'initialize') {
      throw new RpcError(
        ErrorCodes.InvalidRequest,
        'initialize: this component is an ACP proxy and has no agent of its own; a conductor must initialize it with proxy/initialize',
      );
    }
    if (state === 'waiting') throw notInitialized(method);
    if (method === successor().request) {
      const envelope = params as SuccessorEnvelope;
      const inner = envelope.method;
      return pass(
        'toClient',
        'request',
        inner,
        unwrappedParams(envelope),
        (p) => connection.sendRequest(untyped(inner), p, { signal: context.signal }),
        context.signal,
      );
    }
    if (state !== 'ready') throw notInitialized(method);
    return pass(
      'toAgent',
      'request',
      method,
      params,
      (p) => requestSuccessor(method, p, context.signal),
      context.signal,
    );
  });

  connection.onUnhandledNotification(async (method, params) => {
    if (state === 'waiting') {
      problem(`${method} notification before proxy/initialize dropped`);
      return;
    }
    if (method === successor().notification && dialect !== undefined) {
      const envelope = params as SuccessorEnvelope;
      const inner = envelope.method;
      await pass(
        'toClient',
        'notification',
        inner,
        unwrappedParams(envelope),
        async (p) => connection.sendNotification(untyped(inner), p),
        NEVER_ABORTED,
      );
      return;
    }
    await pass(
      'toAgent',
      'notification',
      method,
      params,
      async (p) => notifySuccessor(method, p),
      NEVER_ABORTED,
    );
  });

  const closed = new Promise<RpcError>((resolve) => connection.onClose(resolve));
  connection.listen();
  return {
    connection,
    get dialect() {
      return dialect;
    },
    closed,
    close: () => connection.close(),
  };
}
