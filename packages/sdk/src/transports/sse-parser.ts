/** An SSE event whose data was larger than the reader's limit. */
export class SseEventTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`SSE event larger than ${limit} bytes`);
    this.name = 'SseEventTooLargeError';
  }
}

/**
 * Reads the `data` of each event of a `text/event-stream` body (the WHATWG rules for `data:`
 * lines: one optional space after the colon, several lines joined with `\n`, comments and other
 * fields ignored, CR, LF or CRLF line ends). Browser-safe: only `ReadableStream` and
 * `TextDecoder`. Buffers at most `maxEventBytes` (about) of one event's data, then throws
 * {@link SseEventTooLargeError} instead of growing.
 */
export async function* readSseData(
  body: ReadableStream<Uint8Array>,
  maxEventBytes: number,
): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  let pending = '';
  let data: string[] = [];
  let dataLength = 0;
  let first = true;
  let lastWasCr = false;
  const takeLine = (line: string): string | undefined => {
    if (line === '') {
      if (data.length === 0) return undefined;
      const event = data.join('\n');
      data = [];
      dataLength = 0;
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return undefined;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    dataLength += value.length + 1;
    if (dataLength > maxEventBytes) throw new SseEventTooLargeError(maxEventBytes);
    data.push(value);
    return undefined;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let text = decoder.decode(value, { stream: true });
      if (first) {
        if (text.startsWith('\uFEFF')) text = text.slice(1);
        if (text.length > 0) first = false;
      }
      if (lastWasCr && text.startsWith('\n')) text = text.slice(1);
      lastWasCr = text.endsWith('\r');
      pending += text;
      let start = 0;
      for (;;) {
        const cr = pending.indexOf('\r', start);
        const lf = pending.indexOf('\n', start);
        const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
        if (end === -1) break;
        const event = takeLine(pending.slice(start, end));
        if (event !== undefined) yield event;
        start = end + (pending[end] === '\r' && pending[end + 1] === '\n' ? 2 : 1);
      }
      pending = pending.slice(start);
      if (pending.length > maxEventBytes + 16) throw new SseEventTooLargeError(maxEventBytes);
    }
  } finally {
    reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
