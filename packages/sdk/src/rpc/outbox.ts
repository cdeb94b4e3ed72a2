/**
 * The outgoing side of a {@link Connection}: serialized messages handed to the transport's writer
 * under the message size limit and the outgoing-queue limit (the backpressure policy documented on
 * {@link Connection}), the outgoing message tap, and the writer's close — after the last answers
 * when the peer ended its stream.
 */

import { oversizedError, queueFullError, writeFailedError } from './connection-errors.js';
import type { MessageDirection } from './connection-options.js';
import type { Emitter } from './emitter.js';
import type { RpcError } from './errors.js';
import type { RpcMessage } from './messages.js';
import type { Transport, WriteNote } from './transport.js';
import { utf8ByteLength } from './utf8-length.js';

/**
 * After the peer ended its stream, how long the answers to requests already received may take to
 * be written before the writer is closed anyway.
 */
const DRAIN_MS = 5000;

/** Writes a connection's messages; one per connection, built with it. */
export class Outbox {
  readonly #transport: Transport;
  readonly #maxQueuedBytes: number;
  readonly #messageLimit: number;
  readonly #messages: Emitter<[MessageDirection, unknown]>;
  /** Closes the connection (a write failed, or the queue limit was hit). */
  readonly #fail: (reason: RpcError) => void;
  /** The last write handed to the writer; writes complete in order. */
  #lastWrite: Promise<unknown> = Promise.resolve();
  #queuedBytes = 0;

  constructor(
    transport: Transport,
    maxQueuedBytes: number,
    messageLimit: number,
    messages: Emitter<[MessageDirection, unknown]>,
    fail: (reason: RpcError) => void,
  ) {
    this.#transport = transport;
    this.#maxQueuedBytes = maxQueuedBytes;
    this.#messageLimit = messageLimit;
    this.#messages = messages;
    this.#fail = fail;
  }

  /** Bytes serialized but not yet accepted by the transport. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** The largest message sent, in bytes of serialized JSON. */
  get messageLimit(): number {
    return this.#messageLimit;
  }

  /**
   * Hands one serialized message (a single message, or a batch's answer array holding `tapped`) to
   * the writer, under the size and outgoing-queue limits.
   */
  write(json: string, tapped: readonly RpcMessage[], note?: WriteNote): Promise<void> {
    const bytes = utf8ByteLength(json);
    if (bytes > this.#messageLimit) return Promise.reject(oversizedError(bytes, this.#messageLimit));
    if (this.#queuedBytes + bytes > this.#maxQueuedBytes) return Promise.reject(this.#queueFull(bytes));
    if (!this.#messages.empty) for (const message of tapped) this.#messages.fire('out', message);
    const writer = this.#transport.writer;
    return this.#handOver(bytes, note === undefined ? writer.write(json) : writer.write(json, note));
  }

  /**
   * Hands several serialized messages (`tapped[i]` is the message of `jsons[i]`, when listened to)
   * to the writer at once, under the same limits as {@link write}. An oversized message is refused
   * after the ones before it were handed over; the ones after it are not sent.
   */
  writeBatch(jsons: readonly string[], tapped: readonly RpcMessage[]): Promise<void> {
    let bytes = 0;
    let refused: RpcError | undefined;
    let count = jsons.length;
    for (let i = 0; i < jsons.length; i += 1) {
      const size = utf8ByteLength(jsons[i]!);
      if (size > this.#messageLimit) {
        refused = oversizedError(size, this.#messageLimit);
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

  /** Closes the writer now. */
  close(): void {
    this.#transport.writer.close().catch(() => {});
  }

  /**
   * Closes the writer once `answers` settled and what they wrote was taken, or after
   * {@link DRAIN_MS} at the latest; `onClose` runs just before.
   */
  closeAfter(answers: Iterable<Promise<void>>, onClose: () => void): void {
    const closeWriter = (): void => {
      onClose();
      this.close();
    };
    const timer = setTimeout(closeWriter, DRAIN_MS);
    timer.unref?.();
    Promise.allSettled([...answers])
      .then(() => this.#lastWrite.catch(() => {}))
      .then(() => {
        clearTimeout(timer);
        closeWriter();
      });
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
        const error = writeFailedError(cause);
        this.#fail(error);
        throw error;
      },
    );
    this.#lastWrite = written;
    return written;
  }

  /** The error of a send that would pass the outgoing-queue limit; the connection is closed with it. */
  #queueFull(bytes: number): RpcError {
    const error = queueFullError(this.#maxQueuedBytes, this.#queuedBytes, bytes);
    this.#fail(error);
    return error;
  }
}
