/**
 * The handlers a {@link Connection} calls for incoming requests and notifications: what each one
 * learns besides the params, and the shared {@link HandlerTable}.
 */

import type { RpcId } from './messages.js';

/** What a request handler learns besides the params. */
export interface RequestContext {
  /** The peer's request id. */
  id: RpcId;
  /** The method being handled (useful in fallback handlers). */
  method: string;
  /**
   * Aborted when the peer sends `$/cancel_request` for this id or the connection closes. A handler
   * that then throws (anything) is answered with -32800; one that still returns a result has that
   * result sent, since the work did happen.
   */
  signal: AbortSignal;
}

/** What a notification handler learns besides the params. */
export interface NotificationContext {
  /** The method being handled. */
  method: string;
}

/** Handles one incoming request; its return value (or thrown RpcError) is the response. */
export type RequestHandler<P, R> = (params: P, context: RequestContext) => R | Promise<R>;

/**
 * Handles one incoming notification. Handlers are called synchronously in arrival order; a
 * returned promise is not awaited (only a rejection is reported as a diagnostic).
 */
export type NotificationHandler<P> = (params: P, context: NotificationContext) => void | Promise<void>;

/** A request handler as the connection stores it (params unchecked by type). */
export type AnyRequestHandler = (params: unknown, context: RequestContext) => unknown;
/** A notification handler as the connection stores it (params unchecked by type). */
export type AnyNotificationHandler = (params: unknown, context: NotificationContext) => unknown;

/**
 * Handlers built once and shared by any number of connections ({@link Connection.serveTable}): a
 * server holding thousands of connections then keeps one closure per method, not one per method
 * per connection. Each handler is also passed the `owner` its connection registered the table with
 * (the per-connection state the handlers need).
 */
export interface HandlerTable<O> {
  /** The handler of a request method, if the table has one. */
  request(method: string): ((params: unknown, context: RequestContext, owner: O) => unknown) | undefined;
  /** The handler of a notification method, if the table has one. */
  notification(
    method: string,
  ): ((params: unknown, context: NotificationContext, owner: O) => unknown) | undefined;
}
