/** An SSE event whose data was larger than the reader's limit. */
export class SseEventTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`SSE event larger than ${limit} bytes`);
    this.name = 'SseEventTooLargeError';
  }
}

/**
 * Splits decoded `text/event-stream` text, pushed in pieces of any size, into the `data` of each
 * event, by the WHATWG rules for `data:` lines: one optional space after the colon, several lines
 * joined with `\n`, comments and other fields ignored, CR, LF or CRLF line ends, a leading BOM
 * dropped. Holds at most about `maxEventBytes` of one event (its data and its unfinished line);
 * past that {@link push} throws {@link SseEventTooLargeError} instead of growing. Browser-safe.
 */
export class SseDataDecoder {
  readonly #limit: number;
  #pending = '';
  #data: string[] = [];
  #dataLength = 0;
  #first = true;
  #lastWasCr = false;

  constructor(maxEventBytes: number) {
    this.#limit = maxEventBytes;
  }

  /** Takes the next piece of decoded text and calls `onData` with each event it completes, in order. */
  push(piece: string, onData: (data: string) => void): void {
    if (piece.length === 0) return;
    let text = piece;
    if (this.#first) {
      if (text.startsWith('\uFEFF')) text = text.slice(1);
      if (text.length > 0) this.#first = false;
    }
    if (this.#lastWasCr && text.startsWith('\n')) text = text.slice(1);
    this.#lastWasCr = text.endsWith('\r');
    if (text.length === 0) return;
    const pending = this.#pending.length === 0 ? text : this.#pending + text;
    let start = 0;
    // Where the next CR is; searched again only once the lines before it are taken, so a piece of
    // many LF-ended lines (what servers send) is scanned once, not once per line.
    let cr = pending.indexOf('\r');
    for (;;) {
      if (cr !== -1 && cr < start) cr = pending.indexOf('\r', start);
      const lf = pending.indexOf('\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      const event = this.#takeLine(pending.slice(start, end));
      if (event !== undefined) onData(event);
      start = end + (pending.charCodeAt(end) === 13 && pending.charCodeAt(end + 1) === 10 ? 2 : 1);
    }
    this.#pending = start === 0 ? pending : pending.slice(start);
    if (this.#pending.length > this.#limit + 16) throw new SseEventTooLargeError(this.#limit);
  }

  #takeLine(line: string): string | undefined {
    if (line === '') {
      if (this.#data.length === 0) return undefined;
      const event = this.#data.length === 1 ? this.#data[0]! : this.#data.join('\n');
      this.#data = [];
      this.#dataLength = 0;
      return event;
    }
    if (line.charCodeAt(0) === 58 /* : */) return undefined;
    let value: string;
    if (line.startsWith('data:')) value = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
    else if (line === 'data') value = '';
    else return undefined;
    this.#dataLength += value.length + 1;
    if (this.#dataLength > this.#limit) throw new SseEventTooLargeError(this.#limit);
    this.#data.push(value);
    return undefined;
  }
}

/**
 * Reads the `data` of each event of a `text/event-stream` body, as {@link SseDataDecoder} splits
 * it. Browser-safe: only `ReadableStream` and `TextDecoder`. Buffers at most `maxEventBytes`
 * (about) of one event's data, then throws {@link SseEventTooLargeError} instead of growing.
 */
export async function* readSseData(
  body: ReadableStream<Uint8Array>,
  maxEventBytes: number,
): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  const sse = new SseDataDecoder(maxEventBytes);
  const reader = body.getReader();
  const events: string[] = [];
  const collect = (data: string) => void events.push(data);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      sse.push(decoder.decode(value, { stream: true }), collect);
      for (const data of events.splice(0)) yield data;
    }
  } finally {
    reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
