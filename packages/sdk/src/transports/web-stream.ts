import {
  DEFAULT_MAX_MESSAGE_BYTES,
  type DecodedLine,
  encodeNdjsonLine,
  type MessageReader,
  type MessageReaderListener,
  type MessageWriter,
  NdjsonDecoder,
  type Transport,
} from '../rpc/index.js';

/** Options of {@link webStreamTransport}. */
export interface WebStreamTransportOptions {
  /**
   * Longest accepted incoming line in bytes; a longer line is skipped without being buffered whole
   * and answered with an error, as on the Node stream transports. Default 8 MiB.
   */
  maxMessageBytes?: number;
  /** Whether closing the writer closes the WritableStream. Default true. */
  closeOnClose?: boolean;
  /** Whether disposing the reader cancels the ReadableStream (otherwise it releases its lock). Default true. */
  cancelOnDispose?: boolean;
}

/**
 * Reads ndjson from a `ReadableStream<Uint8Array>` (browsers, workers, Deno, Bun, Node), one
 * JSON-RPC message per line, with the line limit of {@link NdjsonDecoder}. Reading starts at
 * `listen()`, so nothing is lost before a listener exists.
 */
export class WebStreamMessageReader implements MessageReader {
  readonly #decoder: NdjsonDecoder;
  readonly #readable: ReadableStream<Uint8Array>;
  readonly #options: WebStreamTransportOptions;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #listener: MessageReaderListener | undefined;
  #closed = false;

  constructor(readable: ReadableStream<Uint8Array>, options: WebStreamTransportOptions = {}) {
    this.#readable = readable;
    this.#options = options;
    this.#decoder = new NdjsonDecoder(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
  }

  /** Locks the stream and reads it until it ends, fails or the reader is disposed. */
  listen(listener: MessageReaderListener): void {
    if (this.#listener) throw new Error('WebStreamMessageReader.listen() was already called');
    this.#listener = listener;
    const reader = this.#readable.getReader();
    this.#reader = reader;
    void this.#pump(reader);
  }

  /** Stops reading: cancels the stream (or, with `cancelOnDispose: false`, releases its lock). */
  dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    const reader = this.#reader;
    if (reader === undefined) return;
    if (this.#options.cancelOnDispose !== false) reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }

  async #pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (this.#closed) return;
        if (done) break;
        if (!(value instanceof Uint8Array))
          throw new TypeError('the stream gave a chunk that is not a Uint8Array');
        this.#deliver(this.#decoder.push(value));
      }
      this.#deliver(this.#decoder.end());
      this.#finish();
    } catch (error) {
      // A released lock after dispose rejects the pending read: that is not a failure.
      if (!this.#closed) this.#finish(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #deliver(lines: DecodedLine[]): void {
    for (const line of lines) {
      if (this.#closed || !this.#listener) return;
      if (line.ok) this.#listener.onMessage(line.text);
      else this.#listener.onFrameError(line.error);
    }
  }

  #finish(reason?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listener?.onClose(reason);
  }
}

/**
 * Writes ndjson to a `WritableStream<Uint8Array>` in order and honours its backpressure: a
 * message's promise resolves once the stream took it and has room again (`writer.ready`), so the
 * connection's bounded outgoing queue, not the stream, holds what waits.
 */
export class WebStreamMessageWriter implements MessageWriter {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #options: WebStreamTransportOptions;
  readonly #encoder = new TextEncoder();
  #tail: Promise<void> = Promise.resolve();
  #failure: Error | undefined;

  constructor(writable: WritableStream<Uint8Array>, options: WebStreamTransportOptions = {}) {
    this.#writer = writable.getWriter();
    this.#options = options;
    this.#writer.closed.then(
      () => this.#fail(new Error('stream closed')),
      (error: unknown) => this.#fail(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /** Frames `json` as one line and writes it after the messages before it. */
  write(json: string): Promise<void> {
    return this.#enqueue(encodeNdjsonLine(json));
  }

  /** Frames each of `jsons` as a line and writes them together, as one chunk. */
  writeBatch(jsons: readonly string[]): Promise<void> {
    if (jsons.length === 0) return this.#failure ? Promise.reject(this.#failure) : Promise.resolve();
    return this.#enqueue(`${jsons.join('\n')}\n`);
  }

  /**
   * Closes the stream after what it already took (unless `closeOnClose` is false: then only the
   * lock is released). Messages still waiting reject: a connection closes its writer when done.
   */
  async close(): Promise<void> {
    const accepted = this.#tail;
    this.#fail(new Error('writer closed'));
    await accepted.catch(() => undefined);
    if (this.#options.closeOnClose === false) {
      this.#writer.releaseLock();
      return;
    }
    await this.#writer.close().catch(() => undefined);
  }

  #enqueue(line: string): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const bytes = this.#encoder.encode(line);
    const written = this.#tail.then(async () => {
      if (this.#failure) throw this.#failure;
      await this.#writer.ready;
      if (this.#failure) throw this.#failure;
      this.#writer.write(bytes).catch((error: unknown) => {
        this.#fail(error instanceof Error ? error : new Error(String(error)));
      });
      await this.#writer.ready;
    });
    this.#tail = written.catch(() => undefined);
    return written;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
  }
}

/**
 * An ndjson transport over a Web Streams pair — `ReadableStream<Uint8Array>` in,
 * `WritableStream<Uint8Array>` out — as browsers, workers, Deno and Bun offer them (a worker's
 * `MessagePort` piped through a `TransformStream`, `Deno.stdin.readable`, a `fetch` body). Bounds
 * as {@link streamTransport}: a line longer than `maxMessageBytes` is skipped and answered with an
 * error, never buffered whole. Nothing in it needs Node.
 */
export function webStreamTransport(
  readable: ReadableStream<Uint8Array>,
  writable: WritableStream<Uint8Array>,
  options: WebStreamTransportOptions = {},
): Transport {
  return {
    reader: new WebStreamMessageReader(readable, options),
    writer: new WebStreamMessageWriter(writable, options),
  };
}
