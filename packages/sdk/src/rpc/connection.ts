/**
 * The JSON-RPC connection core: {@link Connection}, its API and the message loop. Each message in
 * is parsed, classified and dispatched here; each message out is serialized here and handed to the
 * {@link Outbox} (`outbox.ts`). The peer's calls are served by {@link IncomingCalls}
 * (`incoming-calls.ts`), our requests tracked by {@link OutgoingRequests} (`outgoing-requests.ts`).
 */

import { type Answer, BatchAnswer, type RpcResponse } from './batch-answer.js';
import { CANCEL_REQUEST_METHOD, cancelledBeforeSentError } from './cancellation.js';
import {
  closedLocallyError,
  invalidRequestError,
  invalidResponseError,
  isOversizedError,
  parseError,
  peerEndedError,
  readFrameError,
  resultTooLargeError,
  toRpcError,
  unserializableError,
} from './connection-errors.js';
import {
  type ConnectionOptions,
  DEFAULT_MAX_BATCH_ENTRIES,
  DEFAULT_MAX_QUEUED_BYTES,
  type MessageDirection,
  type RequestOptions,
  type SerializedNotification,
} from './connection-options.js';
import type { Diagnostic } from './diagnostics.js';
import { Emitter } from './emitter.js';
import { splitArray } from './envelope-scan.js';
import type { RpcError } from './errors.js';
import type {
  AnyNotificationHandler,
  AnyRequestHandler,
  HandlerTable,
  NotificationContext,
  NotificationHandler,
  RequestContext,
  RequestHandler,
} from './handlers.js';
import { IncomingCalls } from './incoming-calls.js';
import {
  classifyMessage,
  type RpcId,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
} from './messages.js';
import type {
  AnyNotificationMap,
  AnyRequestMap,
  ExtensionMethod,
  NotificationMapOf,
  RequestMapOf,
} from './method-maps.js';
import { DEFAULT_MAX_MESSAGE_BYTES, excerpt, type FrameError } from './ndjson.js';
import { notificationHead } from './notification-head.js';
import { OutgoingRequests } from './outgoing-requests.js';
import { Outbox } from './outbox.js';
import { exactIdText, serialize, type WireId } from './serialize.js';
import type { Disposable, Transport, WriteNote } from './transport.js';
import { noValidation, type Validator } from './validation.js';

/** What an outgoing message shows listeners when there are none: nothing. */
const NOT_TAPPED: readonly RpcMessage[] = Object.freeze([]);

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
  /** The messages this side sends: limits, the outgoing queue, the writer. */
  readonly #outbox: Outbox;
  #validator: Validator;
  readonly #validatorGiven: boolean;
  readonly #batchLimit: number;

  #listening = false;
  #closedWith: RpcError | undefined;

  readonly #diagnostics = new Emitter<[Diagnostic]>();
  /** The peer's requests and notifications: their handlers, the requests being answered. */
  readonly #incoming = new IncomingCalls(this.#diagnostics);
  /** The requests this side sent, awaiting their answers. */
  readonly #outgoing = new OutgoingRequests(this.#diagnostics);
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
    this.#outbox = new Outbox(
      transport,
      options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
      options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      this.#messages,
      (reason) => this.#closeWith(reason),
    );
    this.#batchLimit = options.maxBatchEntries ?? DEFAULT_MAX_BATCH_ENTRIES;
  }

  /** Starts reading from the transport. Register handlers first so no early message is refused. */
  listen(): this {
    if (this.#listening) throw new Error('Connection.listen() was already called');
    this.#listening = true;
    this.#transport.reader.listen({
      onMessage: (text) => this.#receive(text),
      onFrameError: (error) => this.#receiveFrameError(error),
      onClose: (reason) => this.#closeWith(peerEndedError(reason), true),
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
    return this.#outbox.queuedBytes;
  }

  /** Registers the handler for one request method; a method has at most one handler. */
  onRequest<M extends keyof InReq & string>(
    method: M,
    handler: RequestHandler<InReq[M]['params'], InReq[M]['result']>,
  ): Disposable;
  /** Registers a handler for an extension request method (`_`-prefixed, untyped). */
  onRequest(method: ExtensionMethod, handler: RequestHandler<unknown, unknown>): Disposable;
  onRequest(method: string, handler: (params: never, context: RequestContext) => unknown): Disposable {
    return this.#incoming.onRequest(method, handler as AnyRequestHandler);
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
    return this.#incoming.onNotification(method, handler as AnyNotificationHandler);
  }

  /**
   * Serves the methods of a shared {@link HandlerTable}, each call passed `owner`. A handler
   * registered with {@link Connection.onRequest} / {@link Connection.onNotification} wins over the
   * table's for its method; the unhandled-method handlers see what neither claims. One table per
   * connection.
   */
  serveTable<O>(handlers: HandlerTable<O>, owner: O): Disposable {
    return this.#incoming.serveTable(handlers, owner);
  }

  /**
   * Handles requests no specific handler claims. Throw `new RpcError(ErrorCodes.MethodNotFound, …)`
   * to refuse one. Params are still validated first when the validator knows the method.
   */
  onUnhandledRequest(
    handler: (method: string, params: unknown, context: RequestContext) => unknown,
  ): Disposable {
    return this.#incoming.onUnhandledRequest(handler);
  }

  /** Receives notifications no specific handler claims (instead of the unknown-notification diagnostic). */
  onUnhandledNotification(handler: (method: string, params: unknown) => void | Promise<void>): Disposable {
    return this.#incoming.onUnhandledNotification(handler);
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
    return this.#outbox.messageLimit;
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
      return Promise.reject(cancelledBeforeSentError(method));
    }
    const id = this.#outgoing.nextId();
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.#outgoing.has(id)) {
          this.#sendNotificationUnchecked(CANCEL_REQUEST_METHOD, { requestId: id }).catch(() => {});
          this.#outgoing.withdraw(id);
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#outgoing.add(id, {
        method,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      });
      const message: RpcRequest =
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      this.#send(message).catch((error: unknown) => this.#outgoing.settle(id, undefined, toRpcError(error)));
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
    this.#closeWith(reason ?? closedLocallyError());
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
    // The message object is made only for listeners of outgoing messages (the outbox fires none else).
    const tapped: readonly RpcMessage[] = this.#messages.empty
      ? NOT_TAPPED
      : [{ jsonrpc: '2.0', method, params }];
    return this.#outbox.write(`${notificationHead(method)}${paramsJson}}`, tapped, note);
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
    const head = notificationHead(method);
    const jsons = items.map(({ paramsJson }) => `${head}${paramsJson}}`);
    const tapped: RpcMessage[] = this.#messages.empty
      ? []
      : items.map(({ params }): RpcNotification => ({ jsonrpc: '2.0', method, params }));
    return this.#outbox.writeBatch(jsons, tapped);
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
      !(wire?.draining && 'id' in message && this.#incoming.isDraining(message.id as RpcId))
    ) {
      return Promise.reject(this.#closedWith);
    }
    let json: string;
    try {
      json = serialize(message, wire?.text);
    } catch (error) {
      return Promise.reject(unserializableError(error));
    }
    return this.#outbox.write(json, [message], note);
  }

  /**
   * Sends a reply. A result too large to send becomes a -32603 answer so the peer is not left
   * waiting; other failures already closed the connection, so there is nobody left to tell.
   */
  #reply(message: RpcResponse, idText?: string): Promise<void> {
    const wire: WireId = { text: idText, draining: true };
    if (this.#closedWith && !(message.id !== null && this.#incoming.isDraining(message.id)))
      return Promise.resolve();
    return this.#send(message, wire).catch((error: unknown) => {
      if (!isOversizedError(error) || !('result' in message)) return;
      this.#diagnose({ kind: 'request-handler-error', message: error.message, id: message.id, error });
      return this.#replyError(message.id, resultTooLargeError(), idText);
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
    const { id, idText, failure, isResponse } = readFrameError(error);
    this.#diagnose({ kind: 'frame-error', message: error.message, excerpt: error.excerpt, id });
    if (isResponse) {
      // An answer to one of ours that we cannot read fails that request; a response is never answered.
      if (typeof id === 'number') this.#outgoing.settle(id, undefined, failure);
      return;
    }
    this.#replyError(id, failure, idText);
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
      this.#replyError(null, parseError());
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
      this.#replyError(null, invalidRequestError(reason, data));
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
      limit: this.#outbox.messageLimit,
      serialize,
      write: (json, answers, ids) =>
        this.#closedWith && !ids.some((id) => this.#incoming.isDraining(id))
          ? Promise.resolve()
          : this.#outbox.write(json, answers),
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
        this.#incoming.request(
          classified.message,
          exactIdText(classified.message.id, text),
          answer,
          this.#validator,
        );
        return true;
      case 'notification':
        this.#incoming.notification(classified.message, this.#validator);
        return false;
      case 'success':
      case 'error':
        this.#outgoing.receive(classified.message, this.#validator);
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
        if (classified.looksLikeResponse && typeof id === 'number' && this.#outgoing.has(id)) {
          this.#outgoing.settle(id, undefined, invalidResponseError(reason, pointer));
          return false;
        }
        // JSON-RPC answers requests only: a broken response gets the diagnostic above, no reply.
        if (classified.isResponse) return false;
        const error = invalidRequestError(reason, { pointer, reason });
        answer({ jsonrpc: '2.0', id, error: error.toObject() }, exactIdText(id, text));
        return true;
      }
    }
  }

  /**
   * Closes the connection. With `drain` (the peer ended its stream, which may still be read) the
   * requests already received still get their answers — running handlers are aborted as always,
   * and a handler that finishes anyway, like one for a last line that had no newline, is answered —
   * and the writer closes once those answers are written (see {@link Outbox.closeAfter}).
   */
  #closeWith(reason: RpcError, drain = false): void {
    if (this.#closedWith) return;
    this.#closedWith = reason;
    this.#outgoing.rejectAll(reason);
    this.#incoming.abortAll(reason, drain);
    this.#transport.reader.dispose();
    const answering = this.#incoming.answering;
    if (drain && answering !== undefined) {
      this.#outbox.closeAfter(answering, () => this.#incoming.stopDraining());
    } else {
      this.#outbox.close();
    }
    this.#closeListeners.fire(reason);
    this.#closeListeners.clear();
  }
}
