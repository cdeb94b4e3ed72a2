import type { Diagnostic } from './diagnostics.js';
import { Emitter } from './emitter.js';
import { ErrorCodes, RpcError, type ValidationErrorData } from './errors.js';
import {
  classifyMessage,
  isRpcId,
  type RpcErrorResponse,
  type RpcId,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  type RpcSuccessResponse,
} from './messages.js';
import type {
  AnyNotificationMap,
  AnyRequestMap,
  ExtensionMethod,
  NotificationMapOf,
  RequestMapOf,
} from './method-maps.js';
import { type Answer, BatchAnswer, type RpcResponse } from './batch-answer.js';
import { scanEnvelope, splitArray } from './envelope-scan.js';
import { DEFAULT_MAX_MESSAGE_BYTES, excerpt, type FrameError } from './ndjson.js';
import type { Disposable, Transport, WriteNote } from './transport.js';
import { noValidation, type ValidationIssue, type Validator } from './validation.js';
import { utf8ByteLength } from './utf8-length.js';

/** Default cap on bytes handed to the writer but not yet accepted by the transport: 64 MiB. */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Default cap on the entries of one incoming batch: 10 000, so that an error answer to every entry
 * (about 150 bytes each) still fits in one message under the default size limit.
 */
export const DEFAULT_MAX_BATCH_ENTRIES = 10_000;

/** The method ACP uses to cancel an in-flight request (LSP's `$/cancelRequest`, ACP spelling). */
export const CANCEL_REQUEST_METHOD = '$/cancel_request';

/**
 * How many requests this side withdrew (`$/cancel_request` sent) may wait at once for the peer's
 * late answer: 256. A peer that never answers withdrawn requests cannot make a connection hold
 * more; past the bound the oldest one is forgotten (its promise rejects -32800) and an answer to it
 * that comes later is reported as an unknown response.
 */
export const MAX_WITHDRAWN_REQUESTS = 256;

/**
 * After the peer ended its stream, how long the answers to requests already received may take to
 * be written before the writer is closed anyway.
 */
const DRAIN_MS = 5000;

/** One notification for {@link Connection.sendSerializedNotifications}: its params and their JSON text. */
export interface SerializedNotification {
  /** The params, as outgoing-message listeners see them. */
  readonly params: unknown;
  /** JSON text of `params` without line breaks. */
  readonly paramsJson: string;
}

/** Options for {@link Connection}. */
export interface ConnectionOptions {
  /**
   * Validates incoming params and the results of our requests. The JSON-RPC core knows no
   * protocol: without this option nothing is checked until a protocol layer brings its validator
   * ({@link Connection.useDefaultValidator} — `Agent.serve` and `Client` install ACP v2's
   * `schemaValidator`; a wire codec validates its own version). Pass `noValidation` to keep it off.
   */
  validator?: Validator;
  /**
   * Outgoing backpressure limit, in bytes of serialized JSON. See {@link Connection} for the policy.
   * Default: {@link DEFAULT_MAX_QUEUED_BYTES}.
   */
  maxQueuedBytes?: number;
  /**
   * Largest message this side will send, in bytes of serialized JSON. A bigger one is refused
   * locally (the send rejects; a too-large handler result becomes a -32603 answer) because the
   * peer would drop it and leave its request hanging. Default: {@link DEFAULT_MAX_MESSAGE_BYTES}.
   */
  maxMessageBytes?: number;
  /**
   * Most entries one incoming batch may hold; a longer batch is answered with a single -32600
   * (`id: null`), like an oversized line. Default: {@link DEFAULT_MAX_BATCH_ENTRIES}.
   */
  maxBatchEntries?: number;
}

/** Per-call options of {@link Connection.sendRequest}. */
export interface RequestOptions {
  /**
   * Aborting sends `$/cancel_request` for this request. The promise still settles with the peer's
   * answer (usually a -32800 error, or the result if the work had already finished), because for
   * some methods — `session/prompt` above all — whether the request took effect matters. If the
   * signal is already aborted, nothing is sent and the promise rejects with -32800 at once.
   */
  signal?: AbortSignal;
}

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

/** Direction of a message seen by {@link Connection.onMessage}. */
export type MessageDirection = 'in' | 'out';

interface PendingRequest {
  method: string;
  resolve(value: unknown): void;
  reject(error: RpcError): void;
  cleanup(): void;
}

type AnyRequestHandler = (params: unknown, context: RequestContext) => unknown;
type AnyNotificationHandler = (params: unknown, context: NotificationContext) => unknown;

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

/**
 * A JSON-RPC 2.0 connection over any {@link Transport}, typed by four method maps: requests and
 * notifications this side handles (`InReq`, `InNotif`) and those it sends (`OutReq`, `OutNotif`).
 * An ACP agent is `Connection<AgentRequestMap, AgentNotificationMap, ClientRequestMap, ClientNotificationMap>`.
 *
 * Bad input never stops the connection: each malformed frame gets the JSON-RPC error the
 * specification prescribes and a {@link Diagnostic}, and the next message is processed normally.
 *
 * **Batches.** A frame holding a JSON array is a JSON-RPC 2.0 batch: an empty one is answered
 * with a single -32600 (`id: null`), one with more than `maxBatchEntries` entries likewise; every
 * entry is otherwise handled in order exactly like a message of its own (same validation; an
 * invalid entry gets its own -32600 without failing the others; notifications are not answered),
 * and the answers go out together as one array once every request in the batch has been
 * answered — nothing at all for a batch without requests. The frame size limit applies to the
 * whole batch, incoming and outgoing. This side never sends batches itself.
 *
 * **Outgoing backpressure policy.** Every message is serialized immediately and counted as queued
 * until the writer's `write()` promise resolves, i.e. until the transport accepted it within its own
 * buffer (a Node stream that returned `false` from `write()` is not written to again before
 * `'drain'`). If accepting a new message would make the queued total exceed `maxQueuedBytes`, the
 * peer is evidently not reading: the connection closes with an {@link ErrorCodes.OutgoingBufferFull}
 * error, every pending request rejects with it, and the send that hit the limit rejects too. Memory is
 * therefore bounded by a small multiple of the limit instead of growing with a stalled peer: each
 * queued message is held once as its serialized string, plus a few promises and closures per
 * message (measured after a forced GC at about 1.6× the limit for messages of 1 KiB; see the
 * stalled-client check of `npm run stress`).
 */
export class Connection<
  InReq extends RequestMapOf<InReq> = AnyRequestMap,
  InNotif extends NotificationMapOf<InNotif> = AnyNotificationMap,
  OutReq extends RequestMapOf<OutReq> = AnyRequestMap,
  OutNotif extends NotificationMapOf<OutNotif> = AnyNotificationMap,
> {
  readonly #transport: Transport;
  #validator: Validator;
  readonly #validatorGiven: boolean;
  readonly #maxQueuedBytes: number;
  readonly #messageLimit: number;
  readonly #batchLimit: number;

  // Collections below are created when first needed and dropped when they empty: an idle
  // connection of a server holding thousands pays for none of them.
  #requestHandlers: Map<string, AnyRequestHandler> | undefined;
  #notificationHandlers: Map<string, AnyNotificationHandler> | undefined;
  #requestFallback: AnyRequestHandler | undefined;
  #notificationFallback: AnyNotificationHandler | undefined;
  #table: { readonly handlers: HandlerTable<unknown>; readonly owner: unknown } | undefined;

  #pending: Map<number, PendingRequest> | undefined;
  /** Pending requests already withdrawn, oldest first (at most {@link MAX_WITHDRAWN_REQUESTS}). */
  #withdrawn: Set<number> | undefined;
  #incoming: Map<RpcId, AbortController> | undefined;
  /** Answers to received requests not yet handed to the writer (waited for when the peer ends its stream). */
  #answering: Set<Promise<void>> | undefined;
  /** IDs whose answers may still be sent although the connection closed (see `closeWith`). */
  #draining: Set<RpcId> | undefined;
  /** The last write handed to the writer; writes complete in order. */
  #lastWrite: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #queuedBytes = 0;
  #listening = false;
  #closedWith: RpcError | undefined;

  readonly #diagnostics = new Emitter<[Diagnostic]>();
  readonly #messages = new Emitter<[MessageDirection, unknown]>((error) =>
    this.#diagnose({ kind: 'listener-error', message: 'a message tap threw', error }),
  );
  readonly #closeListeners = new Emitter<[RpcError]>((error) =>
    this.#diagnose({ kind: 'listener-error', message: 'a close listener threw', error }),
  );

  constructor(transport: Transport, options: ConnectionOptions = {}) {
    this.#transport = transport;
    this.#validator = options.validator ?? noValidation;
    this.#validatorGiven = options.validator !== undefined;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.#messageLimit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#batchLimit = options.maxBatchEntries ?? DEFAULT_MAX_BATCH_ENTRIES;
  }

  /** Starts reading from the transport. Register handlers first so no early message is refused. */
  listen(): this {
    if (this.#listening) throw new Error('Connection.listen() was already called');
    this.#listening = true;
    this.#transport.reader.listen({
      onMessage: (text) => this.#receive(text),
      onFrameError: (error) => this.#receiveFrameError(error),
      onClose: (reason) =>
        this.#closeWith(
          new RpcError(
            ErrorCodes.ConnectionClosed,
            reason ? `connection closed: ${reason.message}` : 'connection closed: the peer ended the stream',
            undefined,
            { cause: reason },
          ),
          true,
        ),
    });
    return this;
  }

  /**
   * Installs the validator of the protocol a layer built on this connection speaks (`Agent.serve`
   * and `Client` install ACP v2's), unless the connection was built with a `validator` option,
   * which always wins. Call it before {@link Connection.listen}.
   */
  useDefaultValidator(validator: Validator): void {
    if (!this.#validatorGiven) this.#validator = validator;
  }

  /** True once the connection has closed, for whatever reason. */
  get isClosed(): boolean {
    return this.#closedWith !== undefined;
  }

  /** Bytes serialized but not yet accepted by the transport (see the backpressure policy). */
  get pendingOutgoingBytes(): number {
    return this.#queuedBytes;
  }

  /** Registers the handler for one request method; a method has at most one handler. */
  onRequest<M extends keyof InReq & string>(
    method: M,
    handler: RequestHandler<InReq[M]['params'], InReq[M]['result']>,
  ): Disposable;
  /** Registers a handler for an extension request method (`_`-prefixed, untyped). */
  onRequest(method: ExtensionMethod, handler: RequestHandler<unknown, unknown>): Disposable;
  onRequest(method: string, handler: (params: never, context: RequestContext) => unknown): Disposable {
    this.#requestHandlers ??= new Map();
    return register(this.#requestHandlers, method, handler as AnyRequestHandler);
  }

  /** Registers the handler for one notification method; a method has at most one handler. */
  onNotification<M extends keyof InNotif & string>(
    method: M,
    handler: NotificationHandler<InNotif[M]>,
  ): Disposable;
  /** Registers a handler for an extension notification (`_`-prefixed, untyped). */
  onNotification(method: ExtensionMethod, handler: NotificationHandler<unknown>): Disposable;
  onNotification(
    method: string,
    handler: (params: never, context: NotificationContext) => unknown,
  ): Disposable {
    this.#notificationHandlers ??= new Map();
    return register(this.#notificationHandlers, method, handler as AnyNotificationHandler);
  }

  /**
   * Serves the methods of a shared {@link HandlerTable}, each call passed `owner`. A handler
   * registered with {@link Connection.onRequest} / {@link Connection.onNotification} wins over the
   * table's for its method; the unhandled-method handlers see what neither claims. One table per
   * connection.
   */
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

  /**
   * Handles requests no specific handler claims. Throw `new RpcError(ErrorCodes.MethodNotFound, …)`
   * to refuse one. Params are still validated first when the validator knows the method.
   */
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

  /** Receives notifications no specific handler claims (instead of the unknown-notification diagnostic). */
  onUnhandledNotification(handler: (method: string, params: unknown) => void | Promise<void>): Disposable {
    this.#notificationFallback = (params, context) => handler(context.method, params);
    const installed = this.#notificationFallback;
    return {
      dispose: () => {
        if (this.#notificationFallback === installed) this.#notificationFallback = undefined;
      },
    };
  }

  /** Observes irregular input and handler failures; the connection keeps working regardless. */
  onDiagnostic(listener: (diagnostic: Diagnostic) => void): Disposable {
    return this.#diagnostics.on(listener);
  }

  /** Observes every parsed message in and every message out (transcript recorders hang here). */
  onMessage(listener: (direction: MessageDirection, message: unknown) => void): Disposable {
    return this.#messages.on(listener);
  }

  /** Called once when the connection closes, with the error pending requests were rejected with. */
  onClose(listener: (reason: RpcError) => void): Disposable {
    if (this.#closedWith) {
      const reason = this.#closedWith;
      queueMicrotask(() => listener(reason));
      return { dispose: () => {} };
    }
    return this.#closeListeners.on(listener);
  }

  /** The largest message this connection sends or accepts, in bytes of serialized JSON. */
  get maxMessageBytes(): number {
    return this.#messageLimit;
  }

  /** Sends a request and resolves with its (validated) result; rejects with an {@link RpcError}. */
  sendRequest<M extends keyof OutReq & string>(
    method: M,
    params: OutReq[M]['params'],
    options?: RequestOptions,
  ): Promise<OutReq[M]['result']>;
  /** Sends an extension request (`_`-prefixed, untyped). */
  sendRequest(method: ExtensionMethod, params?: unknown, options?: RequestOptions): Promise<unknown>;
  sendRequest(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    const { signal } = options;
    if (signal?.aborted) {
      return Promise.reject(
        new RpcError(ErrorCodes.RequestCancelled, `${method} was cancelled before it was sent`),
      );
    }
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.#pending?.has(id)) {
          this.#sendNotificationUnchecked(CANCEL_REQUEST_METHOD, { requestId: id }).catch(() => {});
          this.#noteWithdrawn(id);
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending ??= new Map();
      this.#pending.set(id, {
        method,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      });
      const message: RpcRequest =
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      this.#send(message).catch((error: unknown) => this.#settle(id, undefined, toRpcError(error)));
    });
  }

  /**
   * Sends a notification; resolves once the transport accepted it. `note` goes to the transport's
   * writer with the message (see {@link WriteNote}).
   */
  sendNotification<M extends keyof OutNotif & string>(
    method: M,
    params: OutNotif[M],
    note?: WriteNote,
  ): Promise<void>;
  /** Sends an extension notification (`_`-prefixed, untyped). */
  sendNotification(method: ExtensionMethod, params?: unknown, note?: WriteNote): Promise<void>;
  sendNotification(method: string, params?: unknown, note?: WriteNote): Promise<void> {
    return this.#sendNotificationUnchecked(method, params, note);
  }

  /**
   * Closes the connection: pending requests reject, running handlers are aborted, the transport ends.
   * `reason` is the error they reject with, what {@link isClosed} callers and `onClose` listeners
   * get, and what later sends reject with — for example -32098 when an agent cuts off a client that
   * stopped reading. Default: -32099 "connection closed locally". Closing twice keeps the first reason.
   */
  close(reason?: RpcError): void {
    this.#closeWith(reason ?? new RpcError(ErrorCodes.ConnectionClosed, 'connection closed locally'));
  }

  /**
   * @internal Sends a notification whose params are already serialized: `paramsJson` must be JSON
   * text of `params` without line breaks (the agent replays log entries from their stored text).
   * Listeners of outgoing messages still see `params`; size and outgoing-queue limits apply as to
   * any message.
   */
  sendSerializedNotification(
    method: string,
    params: unknown,
    paramsJson: string,
    note?: WriteNote,
  ): Promise<void> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    const message: RpcNotification = { jsonrpc: '2.0', method, params };
    return this.#write(
      `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${paramsJson}}`,
      [message],
      note,
    );
  }

  /**
   * @internal Sends notifications of one method in order, each with its params already serialized
   * (as {@link sendSerializedNotification}), handed to the transport together: a single write where
   * the transport has {@link MessageWriter.writeBatch}. Size and outgoing-queue limits apply as to
   * any message. Resolves once the transport took them all; rejects with the first failure, after
   * the messages before it were handed over.
   */
  sendSerializedNotifications(method: string, items: readonly SerializedNotification[]): Promise<void> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    const head = `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":`;
    const jsons = items.map(({ paramsJson }) => `${head}${paramsJson}}`);
    const tapped: RpcMessage[] = this.#messages.empty
      ? []
      : items.map(({ params }): RpcNotification => ({ jsonrpc: '2.0', method, params }));
    return this.#writeBatch(jsons, tapped);
  }

  #sendNotificationUnchecked(method: string, params: unknown, note?: WriteNote): Promise<void> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    const message: RpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.#send(message, undefined, note);
  }

  #send(message: RpcMessage, wire: WireId | undefined = undefined, note?: WriteNote): Promise<void> {
    if (
      this.#closedWith &&
      !(wire?.draining && 'id' in message && this.#draining?.has(message.id as RpcId))
    ) {
      return Promise.reject(this.#closedWith);
    }
    let json: string;
    try {
      json = serialize(message, wire?.text);
    } catch (error) {
      return Promise.reject(
        new RpcError(ErrorCodes.InternalError, 'message could not be serialized to JSON', undefined, {
          cause: error,
        }),
      );
    }
    return this.#write(json, [message], note);
  }

  /**
   * Hands one serialized message (a single message, or a batch's answer array holding `tapped`) to
   * the writer, under the size and outgoing-queue limits.
   */
  #write(json: string, tapped: readonly RpcMessage[], note?: WriteNote): Promise<void> {
    const bytes = utf8ByteLength(json);
    if (bytes > this.#messageLimit) return Promise.reject(this.#oversized(bytes));
    if (this.#queuedBytes + bytes > this.#maxQueuedBytes) return Promise.reject(this.#queueFull(bytes));
    if (!this.#messages.empty) for (const message of tapped) this.#messages.fire('out', message);
    const writer = this.#transport.writer;
    return this.#handOver(bytes, note === undefined ? writer.write(json) : writer.write(json, note));
  }

  /**
   * Hands several serialized messages (`tapped[i]` is the message of `jsons[i]`, when listened to)
   * to the writer at once, under the same limits as {@link #write}. An oversized message is refused
   * after the ones before it were handed over; the ones after it are not sent.
   */
  #writeBatch(jsons: readonly string[], tapped: readonly RpcMessage[]): Promise<void> {
    let bytes = 0;
    let refused: RpcError | undefined;
    let count = jsons.length;
    for (let i = 0; i < jsons.length; i += 1) {
      const size = utf8ByteLength(jsons[i]!);
      if (size > this.#messageLimit) {
        refused = this.#oversized(size);
        count = i;
        break;
      }
      bytes += size;
    }
    const sent = count === jsons.length ? jsons : jsons.slice(0, count);
    let written: Promise<void> = Promise.resolve();
    if (count > 0) {
      if (this.#queuedBytes + bytes > this.#maxQueuedBytes) return Promise.reject(this.#queueFull(bytes));
      if (!this.#messages.empty)
        for (const message of tapped.slice(0, count)) this.#messages.fire('out', message);
      const writer = this.#transport.writer;
      written = this.#handOver(
        bytes,
        writer.writeBatch !== undefined
          ? writer.writeBatch(sent)
          : Promise.all(sent.map((json) => writer.write(json))).then(() => undefined),
      );
    }
    return refused === undefined ? written : written.then(() => Promise.reject(refused));
  }

  /** Counts `bytes` as queued until the transport took them (`write`); a failed write closes the connection. */
  #handOver(bytes: number, write: Promise<void>): Promise<void> {
    this.#queuedBytes += bytes;
    const written = write.then(
      () => {
        this.#queuedBytes -= bytes;
      },
      (cause: unknown) => {
        this.#queuedBytes -= bytes;
        const error = new RpcError(
          ErrorCodes.ConnectionClosed,
          `connection closed: write failed (${cause instanceof Error ? cause.message : String(cause)})`,
          undefined,
          { cause },
        );
        this.#closeWith(error);
        throw error;
      },
    );
    this.#lastWrite = written;
    return written;
  }

  #oversized(bytes: number): RpcError {
    return new RpcError(
      ErrorCodes.InternalError,
      `outgoing message of ${bytes} bytes exceeds the limit of ${this.#messageLimit} bytes`,
      { reason: 'oversized', bytes, limit: this.#messageLimit },
    );
  }

  /** The error of a send that would pass the outgoing-queue limit; the connection is closed with it. */
  #queueFull(bytes: number): RpcError {
    const error = new RpcError(
      ErrorCodes.OutgoingBufferFull,
      `outgoing buffer limit of ${this.#maxQueuedBytes} bytes exceeded (${this.#queuedBytes} bytes queued, ` +
        `${bytes} more requested): the peer is not reading, so the connection was closed`,
      { limit: this.#maxQueuedBytes, queued: this.#queuedBytes },
    );
    this.#closeWith(error);
    return error;
  }

  /**
   * Sends a reply. A result too large to send becomes a -32603 answer so the peer is not left
   * waiting; other failures already closed the connection, so there is nobody left to tell.
   */
  #reply(message: RpcResponse, idText?: string): Promise<void> {
    const wire: WireId = { text: idText, draining: true };
    if (this.#closedWith && !(message.id !== null && this.#draining?.has(message.id)))
      return Promise.resolve();
    return this.#send(message, wire).catch((error: unknown) => {
      const oversized =
        error instanceof RpcError && (error.data as { reason?: unknown })?.reason === 'oversized';
      if (!oversized || !('result' in message)) return;
      this.#diagnose({ kind: 'request-handler-error', message: error.message, id: message.id, error });
      return this.#replyError(
        message.id,
        new RpcError(ErrorCodes.InternalError, 'Internal error: result too large'),
        idText,
      );
    });
  }

  #replyError(id: RpcId | null, error: RpcError, idText?: string): Promise<void> {
    return this.#reply({ jsonrpc: '2.0', id, error: error.toObject() }, idText);
  }

  /** Answers one message on its own line. */
  readonly #answerNow: Answer = (message, idText) => this.#reply(message, idText);

  #diagnose(diagnostic: Diagnostic): void {
    this.#diagnostics.fire(diagnostic);
  }

  #receiveFrameError(error: FrameError): void {
    if (this.#closedWith) return;
    // The kept start of the frame often names the request: answer by ID so the peer is not left waiting.
    const scan = error.reason === 'oversized' ? scanEnvelope(error.head ?? error.excerpt) : undefined;
    const id = scan?.id ?? null;
    this.#diagnose({ kind: 'frame-error', message: error.message, excerpt: error.excerpt, id });
    const code = error.reason === 'oversized' ? ErrorCodes.InvalidRequest : ErrorCodes.ParseError;
    const failure = new RpcError(code, error.message, { reason: error.reason, bytes: error.bytes });
    const members = scan?.members ?? [];
    const isResponse =
      !members.includes('method') &&
      !members.includes('params') &&
      (members.includes('result') || members.includes('error'));
    if (isResponse) {
      // An answer to one of ours that we cannot read fails that request; a response is never answered.
      if (typeof id === 'number') this.#settle(id, undefined, failure);
      return;
    }
    this.#replyError(id, failure, scan?.idText ?? undefined);
  }

  #receive(text: string): void {
    if (this.#closedWith) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#diagnose({
        kind: 'parse-error',
        message: `malformed JSON: ${error instanceof Error ? error.message : String(error)}`,
        excerpt: excerpt(text),
        id: null,
      });
      this.#replyError(
        null,
        new RpcError(ErrorCodes.ParseError, 'Parse error: the message is not valid JSON'),
      );
      return;
    }
    if (Array.isArray(value)) {
      this.#receiveBatch(value, text);
      return;
    }
    if (!this.#messages.empty) this.#messages.fire('in', value);
    this.#dispatch(value, text, this.#answerNow);
  }

  /**
   * Handles one batch (JSON-RPC 2.0 §6): an empty one gets a single -32600 with `id: null`; each
   * entry is then handled like a message of its own, in order — an invalid entry gets its own
   * error, a notification no answer — and the answers go out as one array once every request in
   * the batch has been answered (see {@link BatchAnswer}); nothing for a batch without requests.
   */
  #receiveBatch(entries: unknown[], text: string): void {
    const refuse = (reason: string, data: Record<string, unknown>): void => {
      this.#diagnose({ kind: 'invalid-message', message: reason, excerpt: excerpt(text), id: null });
      this.#replyError(null, new RpcError(ErrorCodes.InvalidRequest, `Invalid request: ${reason}`, data));
    };
    if (entries.length === 0) {
      refuse('an empty batch', { pointer: '', reason: 'empty batch' });
      return;
    }
    if (entries.length > this.#batchLimit) {
      refuse(`a batch of ${entries.length} entries exceeds the limit of ${this.#batchLimit}`, {
        pointer: '',
        reason: 'batch too large',
        entries: entries.length,
        limit: this.#batchLimit,
      });
      return;
    }
    // The text of each entry, so an entry's big integer ID is echoed exactly, as for a single message.
    const texts = splitArray(text);
    const batch = new BatchAnswer({
      limit: this.#messageLimit,
      serialize,
      write: (json, answers, ids) =>
        this.#closedWith && !ids.some((id) => this.#draining?.has(id))
          ? Promise.resolve()
          : this.#write(json, answers),
      replaced: (id, reason) =>
        this.#diagnose({ kind: 'request-handler-error', message: `batch answer: ${reason}`, id }),
    });
    for (const [index, value] of entries.entries()) {
      if (this.#closedWith) break;
      if (!this.#messages.empty) this.#messages.fire('in', value);
      if (this.#dispatch(value, texts?.[index] ?? '', batch.answer)) batch.expect();
    }
    batch.seal();
  }

  /**
   * Handles one parsed message (alone, or one entry of a batch); its answer, if any, goes to
   * `answer`. Returns whether it will be answered (exactly once).
   */
  #dispatch(value: unknown, text: string, answer: Answer): boolean {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'request':
        this.#receiveRequest(classified.message, exactIdText(classified.message.id, text), answer);
        return true;
      case 'notification':
        this.#receiveNotification(classified.message);
        return false;
      case 'success':
      case 'error':
        this.#receiveResponse(classified.message);
        return false;
      case 'invalid': {
        const { reason, pointer, id } = classified;
        this.#diagnose({
          kind: classified.isResponse ? 'invalid-response' : 'invalid-message',
          message: reason,
          excerpt: excerpt(text),
          id,
        });
        // A broken answer to one of our own requests fails that request; replying to a response
        // would only confuse the peer.
        if (classified.looksLikeResponse && typeof id === 'number' && this.#pending?.has(id)) {
          this.#settle(
            id,
            undefined,
            new RpcError(ErrorCodes.InvalidRequest, `invalid response: ${reason}`, { pointer }),
          );
          return false;
        }
        // JSON-RPC answers requests only: a broken response gets the diagnostic above, no reply.
        if (classified.isResponse) return false;
        const error = new RpcError(ErrorCodes.InvalidRequest, `Invalid request: ${reason}`, {
          pointer,
          reason,
        });
        answer({ jsonrpc: '2.0', id, error: error.toObject() }, exactIdText(id, text));
        return true;
      }
    }
  }

  #receiveRequest(request: RpcRequest, idText: string | undefined, answer: Answer): void {
    const fail = (id: RpcId | null, error: RpcError, text?: string): Promise<void> =>
      answer({ jsonrpc: '2.0', id, error: error.toObject() }, text);
    const { id, method } = request;
    if (this.#incoming?.has(id)) {
      this.#diagnose({
        kind: 'invalid-message',
        message: `duplicate request id ${JSON.stringify(id)}`,
        id,
        method,
      });
      fail(
        null,
        new RpcError(
          ErrorCodes.InvalidRequest,
          'Invalid request: id is already in use by a pending request',
          {
            pointer: '/id',
            reason: 'duplicate id',
          },
        ),
      );
      return;
    }
    const table = this.#table;
    const handler =
      this.#requestHandlers?.get(method) ?? table?.handlers.request(method) ?? this.#requestFallback;
    if (!handler) {
      this.#diagnose({ kind: 'unknown-method', message: `no handler for request ${method}`, id, method });
      fail(id, new RpcError(ErrorCodes.MethodNotFound, `Method not found: ${method}`, { method }), idText);
      return;
    }
    const checked = this.#validator.params(method, request.params);
    if (checked && !checked.ok) {
      const error = validationError(ErrorCodes.InvalidParams, 'Invalid params', '/params', checked.issues);
      this.#diagnose({
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
    this.#incoming ??= new Map();
    this.#incoming.set(id, controller);
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
      const incoming = this.#incoming;
      if (incoming?.get(id) !== controller) return;
      incoming.delete(id);
      if (incoming.size === 0) this.#incoming = undefined;
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
    if (signal.aborted) return new RpcError(ErrorCodes.RequestCancelled, 'Request cancelled');
    this.#diagnose({
      kind: 'request-handler-error',
      message: `handler for ${method} threw`,
      id,
      method,
      error,
    });
    return new RpcError(ErrorCodes.InternalError, 'Internal error');
  }

  #receiveNotification(notification: RpcNotification): void {
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
        this.#diagnose({
          kind: 'unknown-notification',
          message: `no handler for notification ${method}`,
          method,
        });
      }
      return;
    }
    const checked = this.#validator.params(method, notification.params);
    if (checked && !checked.ok) {
      const error = validationError(ErrorCodes.InvalidParams, 'Invalid params', '/params', checked.issues);
      this.#diagnose({
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
    this.#diagnose({
      kind: 'notification-handler-error',
      message: `handler for ${method} threw`,
      method,
      error,
    });
  }

  #receiveCancel(params: unknown): void {
    const requestId =
      typeof params === 'object' && params !== null
        ? (params as { requestId?: unknown }).requestId
        : undefined;
    if (!isRpcId(requestId)) {
      this.#diagnose({
        kind: 'invalid-notification-params',
        message: `${CANCEL_REQUEST_METHOD}: params.requestId must be a string or a number`,
        method: CANCEL_REQUEST_METHOD,
      });
      return;
    }
    // Cancelling something already answered is a normal race, not an irregularity.
    this.#incoming?.get(requestId)?.abort(new RpcError(ErrorCodes.RequestCancelled, 'Request cancelled'));
  }

  #receiveResponse(response: RpcSuccessResponse | RpcErrorResponse): void {
    const { id } = response;
    if (id === null) {
      const { error } = response as RpcErrorResponse;
      this.#diagnose({
        kind: 'peer-error',
        message: `peer reported ${error.code}: ${excerpt(error.message)}`,
        id,
      });
      return;
    }
    const pending = typeof id === 'number' ? this.#pending?.get(id) : undefined;
    if (!pending) {
      this.#diagnose({
        kind: 'unknown-response',
        message: `response for unknown request id ${JSON.stringify(id)}`,
        id,
      });
      return;
    }
    if ('error' in response) {
      this.#settle(id as number, undefined, RpcError.fromObject(response.error));
      return;
    }
    const checked = this.#validator.result(pending.method, response.result);
    if (checked && !checked.ok) {
      const error = validationError(
        ErrorCodes.InternalError,
        `Invalid result for ${pending.method}`,
        '/result',
        checked.issues,
      );
      this.#diagnose({
        kind: 'invalid-result',
        message: error.message,
        id,
        method: pending.method,
        pointer: error.data?.pointer,
      });
      this.#settle(id as number, undefined, error);
      return;
    }
    this.#settle(id as number, checked ? checked.value : response.result);
  }

  /**
   * Keeps a withdrawn request waiting for the peer's late answer, as long as no more than
   * {@link MAX_WITHDRAWN_REQUESTS} wait: past that the oldest is given up (rejected -32800).
   */
  #noteWithdrawn(id: number): void {
    this.#withdrawn ??= new Set();
    this.#withdrawn.add(id);
    if (this.#withdrawn.size <= MAX_WITHDRAWN_REQUESTS) return;
    const oldest = this.#withdrawn.values().next().value as number;
    const method = this.#pending?.get(oldest)?.method ?? 'request';
    this.#settle(
      oldest,
      undefined,
      new RpcError(
        ErrorCodes.RequestCancelled,
        `${method} was withdrawn and the peer never answered; given up after ${MAX_WITHDRAWN_REQUESTS} later withdrawals`,
      ),
    );
  }

  #settle(id: number, value: unknown, error?: RpcError): void {
    const all = this.#pending;
    const pending = all?.get(id);
    if (!all || !pending) return;
    all.delete(id);
    if (all.size === 0) this.#pending = undefined;
    if (this.#withdrawn?.delete(id) && this.#withdrawn.size === 0) this.#withdrawn = undefined;
    pending.cleanup();
    if (error) pending.reject(error);
    else pending.resolve(value);
  }

  /**
   * Closes the connection. With `drain` (the peer ended its stream, which may still be read) the
   * requests already received still get their answers — running handlers are aborted as always,
   * and a handler that finishes anyway, like one for a last line that had no newline, is answered —
   * and the writer closes once those answers are written (at most {@link DRAIN_MS} later).
   */
  #closeWith(reason: RpcError, drain = false): void {
    if (this.#closedWith) return;
    this.#closedWith = reason;
    for (const id of [...(this.#pending?.keys() ?? [])]) this.#settle(id, undefined, reason);
    const incoming = this.#incoming;
    this.#incoming = undefined;
    if (drain && incoming) this.#draining = new Set(incoming.keys());
    for (const controller of incoming?.values() ?? []) controller.abort(reason);
    this.#transport.reader.dispose();
    if (drain && this.#answering !== undefined) {
      const closeWriter = (): void => {
        this.#draining = undefined;
        this.#transport.writer.close().catch(() => {});
      };
      const timer = setTimeout(closeWriter, DRAIN_MS);
      timer.unref?.();
      Promise.allSettled([...this.#answering])
        .then(() => this.#lastWrite.catch(() => {}))
        .then(() => {
          clearTimeout(timer);
          closeWriter();
        });
    } else {
      this.#transport.writer.close().catch(() => {});
    }
    this.#closeListeners.fire(reason);
    this.#closeListeners.clear();
  }
}

/** How an answer names its request on the wire. */
interface WireId {
  /** The request's `id` exactly as the peer wrote it, when JavaScript numbers cannot hold it. */
  text: string | undefined;
  /** Whether the answer may still go out while the connection drains after the peer's end of stream. */
  draining: boolean;
}

/**
 * The exact text of a numeric `id` a JavaScript number cannot hold (an integer beyond 2^53), read
 * from the message text, so the answer echoes what the peer sent instead of a rounded value.
 */
function exactIdText(id: RpcId | null, text: string): string | undefined {
  if (typeof id !== 'number' || Number.isSafeInteger(id)) return undefined;
  const scan = scanEnvelope(text);
  return scan.id === id && scan.idText !== null ? scan.idText : undefined;
}

/** Serializes a message; an answer whose ID needs its exact text gets that text spliced in. */
function serialize(message: RpcMessage, idText: string | undefined): string {
  if (idText === undefined || !('id' in message)) return JSON.stringify(message);
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = message;
  const body = JSON.stringify(rest);
  return `{"jsonrpc":"2.0","id":${idText}${body === '{}' ? '}' : `,${body.slice(1)}`}`;
}

function register<H>(handlers: Map<string, H>, method: string, handler: H): Disposable {
  if (handlers.has(method)) throw new Error(`a handler for ${method} is already registered`);
  handlers.set(method, handler);
  return { dispose: () => handlers.get(method) === handler && handlers.delete(method) };
}

function toRpcError(error: unknown): RpcError {
  return error instanceof RpcError
    ? error
    : new RpcError(ErrorCodes.InternalError, error instanceof Error ? error.message : String(error));
}

/** Builds a validation error whose pointers are relative to the whole message (`/params/…`). */
function validationError(
  code: number,
  label: string,
  prefix: string,
  issues: ValidationIssue[],
): RpcError<ValidationErrorData> {
  const rebased = issues.map((issue) => ({ ...issue, pointer: `${prefix}${issue.pointer}` }));
  const first = rebased[0];
  const pointer = first?.pointer ?? prefix;
  const expected = first ? (first.expected ?? first.message) : 'a valid value';
  return new RpcError(code, `${label} at ${pointer}: expected ${expected}`, {
    pointer,
    expected,
    issues: rebased,
  });
}
