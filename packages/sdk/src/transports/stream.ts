import type { Readable, Writable } from 'node:stream';
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

/** Options shared by the ndjson stream transports. */
export interface StreamTransportOptions {
  /** Longest accepted incoming line in bytes; longer lines are skipped and answered with an error. Default 8 MiB. */
  maxMessageBytes?: number;
  /** Whether closing the writer ends the writable stream (false for process.stdout). Default true. */
  endOnClose?: boolean;
  /** Whether disposing the reader destroys the readable stream. Default true. */
  destroyOnDispose?: boolean;
}

/** Reads ndjson from a Node Readable, one JSON-RPC message per line. */
export class StreamMessageReader implements MessageReader {
  readonly #decoder: NdjsonDecoder;
  #listener: MessageReaderListener | undefined;
  #closed = false;

  readonly #readable: Readable;
  readonly #options: StreamTransportOptions;

  constructor(readable: Readable, options: StreamTransportOptions = {}) {
    this.#readable = readable;
    this.#options = options;
    this.#decoder = new NdjsonDecoder(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
  }

  /** Starts the flow of data; the stream stays paused until then, so nothing is lost. */
  listen(listener: MessageReaderListener): void {
    if (this.#listener) throw new Error('StreamMessageReader.listen() was already called');
    this.#listener = listener;
    this.#readable.on('data', this.#onData);
    this.#readable.on('end', this.#onEnd);
    this.#readable.on('error', this.#onError);
    this.#readable.on('close', this.#onEnd);
  }

  /** Detaches from the stream (and destroys it unless `destroyOnDispose` is false). */
  dispose(): void {
    this.#closed = true;
    this.#readable.off('data', this.#onData);
    this.#readable.off('end', this.#onEnd);
    this.#readable.off('close', this.#onEnd);
    // Keep an error listener: an error after dispose must not crash the process.
    if (this.#options.destroyOnDispose !== false) this.#readable.destroy();
    else this.#readable.pause();
  }

  /** Stops reading the stream (its writer blocks once the pipe is full). */
  pause(): void {
    this.#readable.pause();
  }

  /** Reads the stream again. */
  resume(): void {
    if (this.#listener && !this.#closed) this.#readable.resume();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#deliver(this.#decoder.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
  };

  readonly #onEnd = (): void => {
    if (this.#closed) return;
    this.#deliver(this.#decoder.end());
    this.#finish();
  };

  readonly #onError = (error: Error): void => this.#finish(error);

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

interface QueuedWrite {
  line: string;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Writes ndjson to a Node Writable and honours its backpressure: after `write()` returns false,
 * nothing more is written until 'drain'; later messages wait in order. A message's promise resolves
 * once the stream accepted it (immediately, or at 'drain' for the one that filled the buffer).
 */
export class StreamMessageWriter implements MessageWriter {
  readonly #queue: QueuedWrite[] = [];
  /** The write that filled the stream's buffer; it resolves at 'drain'. */
  #awaitingDrain: QueuedWrite | undefined;
  #failure: Error | undefined;

  readonly #writable: Writable;
  readonly #options: StreamTransportOptions;

  constructor(writable: Writable, options: StreamTransportOptions = {}) {
    this.#writable = writable;
    this.#options = options;
    writable.on('error', this.#onError);
    writable.on('close', this.#onClose);
  }

  /** Frames `json` as one line and writes it, or queues it behind pending backpressure. */
  write(json: string): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ line: encodeNdjsonLine(json), resolve, reject });
      if (!this.#awaitingDrain) this.#flush();
    });
  }

  /** Frames each of `jsons` as a line and writes them together, in one write to the stream. */
  writeBatch(jsons: readonly string[]): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (jsons.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ line: `${jsons.join('\n')}\n`, resolve, reject });
      if (!this.#awaitingDrain) this.#flush();
    });
  }

  /**
   * Ends the stream after what it already accepted. Messages still queued behind backpressure are
   * dropped and their promises reject: a connection closes its writer only when it is done.
   */
  close(): Promise<void> {
    this.#fail(new Error('writer closed'));
    if (this.#options.endOnClose === false || this.#writable.writableEnded || this.#writable.destroyed) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.#writable.once('finish', resolve);
      this.#writable.once('close', resolve);
      this.#writable.once('error', () => resolve());
      this.#writable.end();
    });
  }

  #flush(): void {
    while (this.#queue.length > 0 && !this.#awaitingDrain && !this.#failure) {
      const next = this.#queue.shift()!;
      if (this.#writable.write(next.line)) {
        next.resolve();
      } else {
        this.#awaitingDrain = next;
        this.#writable.once('drain', this.#onDrain);
      }
    }
  }

  readonly #onDrain = (): void => {
    const drained = this.#awaitingDrain;
    this.#awaitingDrain = undefined;
    drained?.resolve();
    this.#flush();
  };

  readonly #onError = (error: Error): void => this.#fail(error);

  readonly #onClose = (): void => this.#fail(new Error('stream closed'));

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#writable.off('drain', this.#onDrain);
    const dropped = this.#awaitingDrain
      ? [this.#awaitingDrain, ...this.#queue.splice(0)]
      : this.#queue.splice(0);
    this.#awaitingDrain = undefined;
    for (const queued of dropped) queued.reject(this.#failure);
  }
}

/** An ndjson transport over any Readable/Writable pair (sockets, pipes, PassThroughs). */
export function streamTransport(
  readable: Readable,
  writable: Writable,
  options: StreamTransportOptions = {},
): Transport {
  return {
    reader: new StreamMessageReader(readable, options),
    writer: new StreamMessageWriter(writable, options),
  };
}

/**
 * The ndjson transport over this process's stdin/stdout: how an agent launched by an editor talks.
 * Closing it stops reading stdin but leaves stdout open (Node does not allow ending it).
 */
export function stdioTransport(options: Omit<StreamTransportOptions, 'endOnClose'> = {}): Transport {
  return streamTransport(process.stdin, process.stdout, { ...options, endOnClose: false });
}
