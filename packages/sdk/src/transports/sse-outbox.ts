/**
 * Where an SSE stream writes: the part of an HTTP response (HTTP/1.1 or HTTP/2) an outbox needs.
 * `writableLength` is what the response still buffers because its reader has not taken it.
 */
export interface SseSink {
  write(chunk: string): boolean;
  end(): void;
  readonly writableLength: number;
  readonly destroyed: boolean;
}

/** Frames one JSON-RPC message (JSON text has no raw line breaks) as one SSE event. */
export const sseEvent = (json: string): string => `data: ${json}\n\n`;

/** An SSE comment: keeps intermediaries from closing an idle stream; readers ignore it. */
export const SSE_KEEPALIVE = ':\n\n';

/**
 * One server→client stream of a Streamable HTTP connection (the connection-scoped one, or one
 * session's). Messages wait here while no GET holds the stream, and go straight to the response
 * while one does. Either way the bytes not yet taken by the reader are bounded by `limit`: a push
 * past it returns false, and the owner cuts the connection off instead of growing memory (a reader
 * that stopped reading stalls no one else).
 *
 * Messages pushed in one turn of the event loop reach the response as one write (flushed in a
 * microtask): a streaming turn's chunks cost one chunked-encoding frame and one system call per
 * batch, not per message.
 */
export class SseOutbox {
  // Both created when needed: a server may hold thousands of idle streams.
  #waiting: string[] | undefined;
  #waitingBytes = 0;
  /**
   * Events for the attached response, written together at the end of this turn of the event loop:
   * the first alone (most turns push one), the rest in an array made when a second comes.
   */
  #unflushedFirst: string | undefined;
  #unflushed: string[] | undefined;
  #unflushedBytes = 0;
  #sink: SseSink | undefined;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Whether a GET holds this stream right now. */
  get attached(): boolean {
    return this.#sink !== undefined;
  }

  /** Bytes accepted but not yet taken by a reader. */
  get pendingBytes(): number {
    return this.#waitingBytes + this.#unflushedBytes + (this.#sink?.writableLength ?? 0);
  }

  /** Queues or sends one message; false when that would pass the limit (nothing is sent then). */
  push(json: string): boolean {
    const event = sseEvent(json);
    const bytes = Buffer.byteLength(event);
    if (this.pendingBytes + bytes > this.#limit) return false;
    if (this.#sink) {
      if (this.#unflushedFirst === undefined) {
        this.#unflushedFirst = event;
        queueMicrotask(() => this.#flush());
      } else {
        this.#unflushed ??= [];
        this.#unflushed.push(event);
      }
      this.#unflushedBytes += bytes;
    } else {
      this.#waiting ??= [];
      this.#waiting.push(event);
      this.#waitingBytes += bytes;
    }
    return true;
  }

  /** Hands the stream to a GET's response: what waited is written first, in order. */
  attach(sink: SseSink): void {
    this.#sink = sink;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    this.#waitingBytes = 0;
    if (waiting !== undefined) sink.write(waiting.join(''));
  }

  /**
   * The GET went away (its reader closed it); later messages wait again, and so do those pushed
   * for it that it was not handed yet.
   */
  detach(sink: SseSink): void {
    if (this.#sink !== sink) return;
    this.#sink = undefined;
    if (this.#unflushedFirst !== undefined) {
      this.#waiting ??= [];
      this.#waiting.push(this.#unflushedFirst, ...(this.#unflushed ?? []));
    }
    this.#waitingBytes += this.#unflushedBytes;
    this.#unflushedFirst = undefined;
    this.#unflushed = undefined;
    this.#unflushedBytes = 0;
  }

  /** Writes a keepalive comment when a reader holds the stream and has taken everything. */
  keepAlive(): void {
    if (this.#sink && this.#unflushedFirst === undefined && this.#sink.writableLength === 0)
      this.#sink.write(SSE_KEEPALIVE);
  }

  /** Ends the response holding the stream, if any (after what was pushed for it), and drops what waits. */
  close(): void {
    this.#flush();
    const sink = this.#sink;
    this.#sink = undefined;
    this.#waiting = undefined;
    this.#waitingBytes = 0;
    if (sink && !sink.destroyed) sink.end();
  }

  /** Writes the events pushed for the attached response since the last flush, as one write. */
  #flush(): void {
    const first = this.#unflushedFirst;
    if (first === undefined) return;
    const rest = this.#unflushed;
    this.#unflushedFirst = undefined;
    this.#unflushed = undefined;
    this.#unflushedBytes = 0;
    const sink = this.#sink;
    if (sink !== undefined && !sink.destroyed) sink.write(rest === undefined ? first : first + rest.join(''));
  }
}
