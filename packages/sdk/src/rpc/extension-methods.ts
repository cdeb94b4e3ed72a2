import { validationError } from './connection-errors.js';
import type { RequestOptions } from './connection-options.js';
import type { NotificationHandler, RequestContext } from './handlers.js';
import { ErrorCodes, type RpcError, type ValidationErrorData } from './errors.js';
import type { ExtensionMethod } from './method-maps.js';
import type { Disposable } from './transport.js';
import type { ValidationIssue } from './validation.js';

/**
 * Checks one value of an extension method: the problems found, each with an RFC 6901 pointer
 * relative to the value, or `undefined` (or an empty list) when the value is valid.
 */
export type ValueCheck = (value: unknown) => readonly ValidationIssue[] | undefined;

/**
 * The side of a {@link Connection} extension methods use: every `Connection` (an agent's or a
 * client's) is one.
 */
export interface ExtensionPeer {
  /** Registers the handler of an extension request (see `Connection.onRequest`). */
  onRequest(
    method: ExtensionMethod,
    handler: (params: unknown, context: RequestContext) => unknown,
  ): Disposable;
  /** Registers the handler of an extension notification (see `Connection.onNotification`). */
  onNotification(method: ExtensionMethod, handler: NotificationHandler<unknown>): Disposable;
  /** Sends an extension request (see `Connection.sendRequest`). */
  sendRequest(method: ExtensionMethod, params?: unknown, options?: RequestOptions): Promise<unknown>;
  /** Sends an extension notification (see `Connection.sendNotification`). */
  sendNotification(method: ExtensionMethod, params?: unknown): Promise<void>;
}

/** Throws the refusal when `check` finds a problem in `value`. */
function enforce(
  check: ValueCheck | undefined,
  value: unknown,
  code: number,
  label: string,
  prefix: string,
): void {
  const issues = check?.(value);
  if (issues !== undefined && issues.length > 0) throw validationError(code, label, prefix, issues);
}

/** How an extension request's params and result are checked. */
export interface ExtensionRequestSpec {
  /** Checks the params (relative pointers, rebased onto `/params`). */
  params: ValueCheck;
  /** Checks the result (rebased onto `/result`). Omitted: any result is taken. */
  result?: ValueCheck;
}

/**
 * A `_`-prefixed request method with checked, typed params `P` and result `R`, for either side of
 * a connection: {@link ExtensionRequest.serve} answers it, {@link ExtensionRequest.send} calls it.
 * The types are yours to match with the checks: declare them once, with
 * {@link extensionRequest}, and share the object between the sides.
 *
 * - Serving: params the check refuses are answered -32602 at their pointer
 *   (`data.pointer: '/params/query'`, `expected`, all `issues`) before the handler runs; a result
 *   the handler returns that the result check refuses is answered -32603 at its pointer
 *   (`/result/…`) instead of being sent.
 * - Sending: params the check refuses reject -32602 without anything sent; a result the peer
 *   sends that the check refuses rejects -32603 at its pointer, as the connection does for a
 *   protocol method's result.
 */
export class ExtensionRequest<P, R> {
  /** The method name, `_`-prefixed. */
  readonly method: ExtensionMethod;
  readonly #spec: ExtensionRequestSpec;

  constructor(method: ExtensionMethod, spec: ExtensionRequestSpec) {
    if (!method.startsWith('_')) throw new TypeError(`extension methods start with _: ${method}`);
    this.method = method;
    this.#spec = spec;
  }

  /** Registers `handler` for this method on `connection` (one handler per method and connection). */
  serve(
    connection: ExtensionPeer,
    handler: (params: P, context: RequestContext) => R | Promise<R>,
  ): Disposable {
    return connection.onRequest(this.method, async (params, context) => {
      enforce(
        this.#spec.params,
        params,
        ErrorCodes.InvalidParams,
        `Invalid params for ${this.method}`,
        '/params',
      );
      const result = await handler(params as P, context);
      enforce(
        this.#spec.result,
        result,
        ErrorCodes.InternalError,
        `Invalid result for ${this.method}`,
        '/result',
      );
      return result;
    });
  }

  /** Sends the request on `connection` and resolves with its checked result. */
  async send(connection: ExtensionPeer, params: P, options?: RequestOptions): Promise<R> {
    enforce(
      this.#spec.params,
      params,
      ErrorCodes.InvalidParams,
      `Invalid params for ${this.method}`,
      '/params',
    );
    const result = await connection.sendRequest(this.method, params, options);
    enforce(
      this.#spec.result,
      result,
      ErrorCodes.InternalError,
      `Invalid result for ${this.method}`,
      '/result',
    );
    return result as R;
  }
}

/** What a notification handler registered with {@link ExtensionNotification.on} may add. */
export interface ExtensionNotificationOptions {
  /**
   * Called with the -32602 error (its pointer under `/params`) for a notification whose params the
   * check refused; the notification is dropped, as JSON-RPC cannot answer one. Default: ignored.
   */
  onInvalid?: (error: RpcError<ValidationErrorData>) => void;
}

/**
 * A `_`-prefixed notification with checked, typed params `P`, for either side of a connection:
 * {@link ExtensionNotification.on} handles it, {@link ExtensionNotification.send} sends it. Params
 * the check refuses are dropped before the handler (and reported to `onInvalid`); sending them
 * rejects -32602 at their pointer without anything sent.
 */
export class ExtensionNotification<P> {
  /** The method name, `_`-prefixed. */
  readonly method: ExtensionMethod;
  readonly #params: ValueCheck;

  constructor(method: ExtensionMethod, spec: { params: ValueCheck }) {
    if (!method.startsWith('_')) throw new TypeError(`extension methods start with _: ${method}`);
    this.method = method;
    this.#params = spec.params;
  }

  /** Registers `handler` for this notification on `connection`. */
  on(
    connection: ExtensionPeer,
    handler: NotificationHandler<P>,
    options: ExtensionNotificationOptions = {},
  ): Disposable {
    return connection.onNotification(this.method, (params, context) => {
      try {
        enforce(
          this.#params,
          params,
          ErrorCodes.InvalidParams,
          `Invalid params for ${this.method}`,
          '/params',
        );
      } catch (error) {
        options.onInvalid?.(error as RpcError<ValidationErrorData>);
        return;
      }
      return handler(params as P, context);
    });
  }

  /** Sends the notification on `connection` once its params pass the check. */
  async send(connection: ExtensionPeer, params: P): Promise<void> {
    enforce(this.#params, params, ErrorCodes.InvalidParams, `Invalid params for ${this.method}`, '/params');
    await connection.sendNotification(this.method, params);
  }
}

/**
 * Declares a typed extension request: `P` and `R` are its params and result types, `spec` the
 * checks that make them true at run time (see {@link ajvCheck} for a JSON Schema).
 *
 * ```ts
 * const search = extensionRequest<{ query: string }, { hits: string[] }>('_acme/search', {
 *   params: ajvCheck(ajv.compile(paramsSchema)),
 *   result: ajvCheck(ajv.compile(resultSchema)),
 * });
 * search.serve(agentConnection, ({ query }) => ({ hits: find(query) }));
 * const { hits } = await search.send(clientConnection, { query: 'todo' });
 * ```
 */
export function extensionRequest<P, R>(
  method: ExtensionMethod,
  spec: ExtensionRequestSpec,
): ExtensionRequest<P, R> {
  return new ExtensionRequest<P, R>(method, spec);
}

/** Declares a typed extension notification with params `P`, checked by `spec.params`. */
export function extensionNotification<P>(
  method: ExtensionMethod,
  spec: { params: ValueCheck },
): ExtensionNotification<P> {
  return new ExtensionNotification<P>(method, spec);
}
