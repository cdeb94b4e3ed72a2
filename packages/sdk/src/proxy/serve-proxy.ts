/**
 * An ACP proxy on its connection to a conductor: its options (interceptors by method and
 * direction, the initialization's shaping, an observer) and what serving it returns; the relay
 * itself is `proxy-relay.ts`'s.
 */
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
  InitializeRequest,
  InitializeResponse,
} from '@acp-kit/schema';
import { Connection } from '../rpc/connection.js';
import type { ConnectionOptions } from '../rpc/connection-options.js';
import type { RpcError } from '../rpc/errors.js';
import type { Transport } from '../rpc/transport.js';
import type { ProxyDialect } from './dialect.js';
import { envelopeValidator } from './envelope-validator.js';
import { ProxyRelay } from './proxy-relay.js';

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
  const relay = new ProxyRelay(connection, options);
  connection.onUnhandledRequest((method, params, context) =>
    relay.request(method, params, context.id, context.signal),
  );
  connection.onUnhandledNotification((method, params) => relay.notification(method, params));
  const closed = new Promise<RpcError>((resolve) => connection.onClose(resolve));
  connection.listen();
  return {
    connection,
    get dialect() {
      return relay.dialect;
    },
    closed,
    close: () => connection.close(),
  };
}
