/**
 * The peer's calls on a {@link Connection}: the handlers registered for its requests and
 * notifications (one per method, a shared {@link HandlerTable}, the unhandled-method handlers),
 * the requests being answered and their `$/cancel_request`, and what happens to them when the
 * connection closes.
 */

import type { Answer } from './batch-answer.js';
import { CANCEL_REQUEST_METHOD, cancelledRequestId, requestCancelledError } from './cancellation.js';
import {
  duplicateIdError,
  internalError,
  invalidParamsError,
  methodNotFoundError,
} from './connection-errors.js';
import type { Diagnostic } from './diagnostics.js';
import type { Emitter } from './emitter.js';
import { RpcError } from './errors.js';
import type {
  AnyNotificationHandler,
  AnyRequestHandler,
  HandlerTable,
  NotificationContext,
  RequestContext,
} from './handlers.js';
import type { RpcId, RpcNotification, RpcRequest } from './messages.js';
import type { Disposable } from './transport.js';
import type { Validator } from './validation.js';

/** Serves the peer's requests and notifications; one per connection, built with it. */
export class IncomingCalls {
  readonly #diagnostics: Emitter<[Diagnostic]>;

  // Collections below are created when first needed and dropped when they empty: an idle
  // connection of a server holding thousands pays for none of them.
  #requestHandlers: Map<string, AnyRequestHandler> | undefined;
  #notificationHandlers: Map<string, AnyNotificationHandler> | undefined;
  #requestFallback: AnyRequestHandler | undefined;
  #notificationFallback: AnyNotificationHandler | undefined;
  #table: { readonly handlers: HandlerTable<unknown>; readonly owner: unknown } | undefined;
  /** The requests being handled, by the peer's ID. */
  #controllers: Map<RpcId, AbortController> | undefined;
  /** Answers to received requests not yet handed to the writer (waited for when the peer ends its stream). */
  #answering: Set<Promise<void>> | undefined;
  /** IDs whose answers may still be sent although the connection closed (see {@link abortAll}). */
  #draining: Set<RpcId> | undefined;

  constructor(diagnostics: Emitter<[Diagnostic]>) {
    this.#diagnostics = diagnostics;
  }

  /** Registers the handler of one request method; a method has at most one handler. */
  onRequest(method: string, handler: AnyRequestHandler): Disposable {
    this.#requestHandlers ??= new Map();
    return register(this.#requestHandlers, method, handler);
  }

  /** Registers the handler of one notification method; a method has at most one handler. */
  onNotification(method: string, handler: AnyNotificationHandler): Disposable {
    this.#notificationHandlers ??= new Map();
    return register(this.#notificationHandlers, method, handler);
  }

  /** Serves the methods of a shared table, each call passed `owner` (see {@link Connection.serveTable}). */
  serveTable<O>(handlers: HandlerTable<O>, owner: O): Disposable {
    if (this.#table) throw new Error('a handler table is already served on this connection');
    const installed = { handlers: handlers as HandlerTable<unknown>, owner };
    this.#table = installed;
    return {
      dispose: () => {
        if (this.#table === installed) this.#table = undefined;
      },
    };
  }

  /** Handles requests no specific handler claims. */
  onUnhandledRequest(
    handler: (method: string, params: unknown, context: RequestContext) => unknown,
  ): Disposable {
    this.#requestFallback = (params, context) => handler(context.method, params, context);
    const installed = this.#requestFallback;
    return {
      dispose: () => {
        if (this.#requestFallback === installed) this.#requestFallback = undefined;
      },
    };
  }

  /** Receives notifications no specific handler claims. */
  onUnhandledNotification(handler: (method: string, params: unknown) => void | Promise<void>): Disposable {
    this.#notificationFallback = (params, context) => handler(context.method, params);
    const installed = this.#notificationFallback;
    return {
      dispose: () => {
        if (this.#notificationFallback === installed) this.#notificationFallback = undefined;
      },
    };
  }

  /** Answers not yet handed to the writer, if any. */
  get answering(): ReadonlySet<Promise<void>> | undefined {
    return this.#answering;
  }

  /** Whether the answer to `id` may still go out although the connection closed. */
  isDraining(id: RpcId): boolean {
    return this.#draining?.has(id) === true;
  }

  /**
   * Aborts every running handler with `reason` (the connection closed). With `drain` their answers
   * may still go out, until {@link stopDraining}.
   */
  abortAll(reason: RpcError, drain: boolean): void {
    const controllers = this.#controllers;
    this.#controllers = undefined;
    if (drain && controllers) this.#draining = new Set(controllers.keys());
    for (const controller of controllers?.values() ?? []) controller.abort(reason);
  }

  /** No answer may go out any more: the writer is closing. */
  stopDraining(): void {
    this.#draining = undefined;
  }

  /**
   * Serves one request of the peer: refused at once (duplicate ID, no handler, invalid params) or
   * handed to its handler, whose outcome goes to `answer`. `idText` is the exact text of a big
   * integer ID.
   */
  request(request: RpcRequest, idText: string | undefined, answer: Answer, validator: Validator): void {
    const fail = (id: RpcId | null, error: RpcError, text?: string): Promise<void> =>
      answer({ jsonrpc: '2.0', id, error: error.toObject() }, text);
    const { id, method } = request;
    if (this.#controllers?.has(id)) {
      this.#diagnostics.fire({
        kind: 'invalid-message',
        message: `duplicate request id ${JSON.stringify(id)}`,
        id,
        method,
      });
      fail(null, duplicateIdError());
      return;
    }
    const table = this.#table;
    const handler =
      this.#requestHandlers?.get(method) ?? table?.handlers.request(method) ?? this.#requestFallback;
    if (!handler) {
      this.#diagnostics.fire({
        kind: 'unknown-method',
        message: `no handler for request ${method}`,
        id,
        method,
      });
      fail(id, methodNotFoundError(method), idText);
      return;
    }
    const checked = validator.params(method, request.params);
    if (checked && !checked.ok) {
      const error = invalidParamsError(checked.issues);
      this.#diagnostics.fire({
        kind: 'invalid-params',
        message: error.message,
        id,
        method,
        pointer: error.data?.pointer,
      });
      fail(id, error, idText);
      return;
    }
    const controller = new AbortController();
    this.#controllers ??= new Map();
    this.#controllers.set(id, controller);
    const context: RequestContext = { id, method, signal: controller.signal };
    let outcome: Promise<unknown>;
    try {
      // A table's handler takes the owner as a third argument; any other ignores it.
      outcome = Promise.resolve(
        (handler as (p: unknown, c: RequestContext, o: unknown) => unknown)(
          checked ? checked.value : request.params,
          context,
          table?.owner,
        ),
      );
    } catch (error) {
      outcome = Promise.reject(error);
    }
    // The id is free again once its answer is handed to the writer: a peer in the same process may
    // get the answer and reuse the id before the write has finished.
    const release = (): void => {
      const controllers = this.#controllers;
      if (controllers?.get(id) !== controller) return;
      controllers.delete(id);
      if (controllers.size === 0) this.#controllers = undefined;
    };
    const answered: Promise<void> = outcome
      .then(
        (result) => {
          release();
          return answer({ jsonrpc: '2.0', id, result: result === undefined ? null : result }, idText);
        },
        (error: unknown) => {
          const failure = this.#handlerFailure(error, controller.signal, id, method);
          release();
          return fail(id, failure, idText);
        },
      )
      .finally(() => {
        release();
        if (this.#draining?.delete(id) && this.#draining.size === 0) this.#draining = undefined;
        const answering = this.#answering!;
        answering.delete(answered);
        if (answering.size === 0) this.#answering = undefined;
      });
    this.#answering ??= new Set();
    this.#answering.add(answered);
  }

  #handlerFailure(error: unknown, signal: AbortSignal, id: RpcId, method: string): RpcError {
    if (error instanceof RpcError) return error;
    if (signal.aborted) return requestCancelledError();
    this.#diagnostics.fire({
      kind: 'request-handler-error',
      message: `handler for ${method} threw`,
      id,
      method,
      error,
    });
    return internalError();
  }

  /**
   * Serves one notification of the peer: `$/cancel_request` aborts the request it names; any other
   * goes to its handler, called synchronously (a returned promise is not awaited).
   */
  notification(notification: RpcNotification, validator: Validator): void {
    const { method } = notification;
    if (method === CANCEL_REQUEST_METHOD) {
      this.#receiveCancel(notification.params);
      return;
    }
    const table = this.#table;
    const handler =
      this.#notificationHandlers?.get(method) ??
      table?.handlers.notification(method) ??
      this.#notificationFallback;
    if (!handler) {
      if (!method.startsWith('_')) {
        this.#diagnostics.fire({
          kind: 'unknown-notification',
          message: `no handler for notification ${method}`,
          method,
        });
      }
      return;
    }
    const checked = validator.params(method, notification.params);
    if (checked && !checked.ok) {
      const error = invalidParamsError(checked.issues);
      this.#diagnostics.fire({
        kind: 'invalid-notification-params',
        message: `${method}: ${error.message}`,
        method,
        pointer: error.data?.pointer,
      });
      return;
    }
    try {
      const result = (handler as (p: unknown, c: NotificationContext, o: unknown) => unknown)(
        checked ? checked.value : notification.params,
        { method },
        table?.owner,
      );
      // No closure unless a handler is async: this path runs once per streamed update.
      if (result instanceof Promise)
        result.catch((error: unknown) => this.#reportHandlerError(method, error));
    } catch (error) {
      this.#reportHandlerError(method, error);
    }
  }

  #reportHandlerError(method: string, error: unknown): void {
    this.#diagnostics.fire({
      kind: 'notification-handler-error',
      message: `handler for ${method} threw`,
      method,
      error,
    });
  }

  #receiveCancel(params: unknown): void {
    const requestId = cancelledRequestId(params);
    if (requestId === undefined) {
      this.#diagnostics.fire({
        kind: 'invalid-notification-params',
        message: `${CANCEL_REQUEST_METHOD}: params.requestId must be a string or a number`,
        method: CANCEL_REQUEST_METHOD,
      });
      return;
    }
    // Cancelling something already answered is a normal race, not an irregularity.
    this.#controllers?.get(requestId)?.abort(requestCancelledError());
  }
}

/** Registers `handler` as the one handler of `method`; disposing removes it if it is still the one. */
function register<H>(handlers: Map<string, H>, method: string, handler: H): Disposable {
  if (handlers.has(method)) throw new Error(`a handler for ${method} is already registered`);
  handlers.set(method, handler);
  return { dispose: () => handlers.get(method) === handler && handlers.delete(method) };
}
