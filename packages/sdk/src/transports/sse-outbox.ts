/**
 * Where an SSE stream writes: the part of an HTTP response (HTTP/1.1 or HTTP/2) an outbox needs.
 * `writableLength` is what the response still buffers because its reader has not taken it.
 */
export interface SseSink {
  /** Writes `chunk`; `bytes`, when given, is its length in UTF-8 (the writer knew it already). */
  write(chunk: string, bytes?: number): boolean;
  end(): void;
  readonly writableLength: number;
  readonly destroyed: boolean;
}

/** Frames one JSON-RPC message (JSON text has no raw line breaks) as one SSE event. */
export const sseEvent = (json: string): string => `data: ${json}\n\n`;

/** The bytes {@link sseEvent} adds around the JSON: `data: ` and two line feeds. */
const SSE_EVENT_FRAMING_BYTES = 8;

/** A settled promise: what the flush of a turn's events is chained on. */
const SETTLED: Promise<void> = Promise.resolve();

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
 * microtask shared by every outbox with something to flush): a streaming turn's chunks cost one
 * chunked-encoding frame and one system call per batch, not per message.
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
    // Counted on the JSON (the frame adds 8 ASCII bytes), so the frame is not flattened to count it.
    const bytes = Buffer.byteLength(json) + SSE_EVENT_FRAMING_BYTES;
    if (this.pendingBytes + bytes > this.#limit) return false;
    if (this.#sink) {
      if (this.#unflushedFirst === undefined) {
        this.#unflushedFirst = event;
        SseOutbox.#due(this);
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

  /**
   * Outboxes with events to flush at the end of this turn, in the order they got their first:
   * `#dueCount` of them from the start (slots past it are empty). One microtask flushes them all,
   * instead of one `queueMicrotask` (an async resource and a bound function) per flush.
   */
  static readonly #dueOutboxes: (SseOutbox | undefined)[] = [];
  static #dueCount = 0;

  /** Queues `outbox` to be flushed in this turn's flush microtask (scheduled by the first). */
  static #due(outbox: SseOutbox): void {
    if (SseOutbox.#dueCount === 0) void SETTLED.then(SseOutbox.#flushDue);
    SseOutbox.#dueOutboxes[SseOutbox.#dueCount++] = outbox;
  }

  /**
   * Flushes every due outbox, those made due while flushing included. One whose write throws
   * does not keep the others from being flushed; the first error is thrown once all were.
   */
  static #flushDue(this: void): void {
    const due = SseOutbox.#dueOutboxes;
    let failure: { error: unknown } | undefined;
    for (let i = 0; i < SseOutbox.#dueCount; i++) {
      const outbox = due[i]!;
      due[i] = undefined;
      try {
        outbox.#flush();
      } catch (error) {
        failure ??= { error };
      }
    }
    SseOutbox.#dueCount = 0;
    if (failure !== undefined) throw failure.error;
  }

  /** Writes the events pushed for the attached response since the last flush, as one write. */
  #flush(): void {
    const first = this.#unflushedFirst;
    if (first === undefined) return;
    const rest = this.#unflushed;
    const bytes = this.#unflushedBytes;
    this.#unflushedFirst = undefined;
    this.#unflushed = undefined;
    this.#unflushedBytes = 0;
    const sink = this.#sink;
    if (sink !== undefined && !sink.destroyed)
      sink.write(rest === undefined ? first : first + rest.join(''), bytes);
  }
}
