/** Default cap on one incoming message: 8 MiB of UTF-8, newline excluded. */
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** How many characters of a bad line are kept for diagnostics. */
export const EXCERPT_CHARS = 120;

/** How many bytes of an oversized line are kept (to read its `id` from). */
export const HEAD_BYTES = EXCERPT_CHARS * 4;

/** A frame a transport could not turn into text; the connection answers it with an error. */
export interface FrameError {
  /**
   * `oversized`: longer than the limit; `invalid-utf8`: not decodable (WebSocket binary frames are
   * decoded like text frames, so they fail only this way).
   */
  reason: 'oversized' | 'invalid-utf8';
  /** Human-readable explanation. */
  message: string;
  /** The start of the frame, decoded leniently and truncated, for diagnostics only. */
  excerpt: string;
  /** Size of the frame in bytes, as far as the transport counted it. */
  bytes: number;
  /**
   * The start of the frame the transport kept (a few hundred bytes, decoded leniently), when it kept
   * one: enough for the connection to read the `id` of an oversized request and answer it by ID.
   */
  head?: string;
}

/** One decoded line: its text, or why it was rejected. */
export type DecodedLine = { ok: true; text: string } | { ok: false; error: FrameError };

const NEWLINE = 0x0a;
const CR = 0x0d;
const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

/** Truncates text for diagnostics so a hostile line cannot flood logs. */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function lenientExcerpt(bytes: Uint8Array): string {
  return excerpt(lenient.decode(bytes.subarray(0, HEAD_BYTES)));
}

/**
 * Splits a byte stream into newline-delimited lines and decodes each as strict UTF-8.
 *
 * Memory stays bounded by `maxLineBytes`: once the current line grows past the limit its bytes are
 * dropped (only a short excerpt is kept) and the rest of the line is skipped up to the next
 * newline, where exactly one `oversized` error is reported. Blank lines are skipped; a trailing
 * `\r` is removed so CRLF peers work.
 */
export class NdjsonDecoder {
  readonly maxLineBytes: number;
  #parts: Uint8Array[] = [];
  #size = 0;
  #discarding = false;
  #discardedHead: Uint8Array | undefined;

  constructor(maxLineBytes: number = DEFAULT_MAX_MESSAGE_BYTES) {
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * The bytes of the unfinished line this decoder holds (zero while it skips an oversized one).
   * @internal
   */
  get bufferedBytes(): number {
    return this.#parts.reduce((n, p) => n + p.length, 0);
  }

  /** Feeds a chunk; returns the lines it completed (possibly none). */
  push(chunk: Uint8Array): DecodedLine[] {
    const out: DecodedLine[] = [];
    let start = 0;
    let region = true;
    while (start < chunk.length) {
      if (region && this.#size === 0 && !this.#discarding) {
        // Once per chunk, as soon as a line starts: the whole lines up to its last newline at once.
        region = false;
        start = this.#wholeLines(chunk, start, out);
        if (start >= chunk.length) break;
      }
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      if (nl !== -1 && this.#size === 0 && !this.#discarding) {
        // The common case, a whole line inside this chunk: decode it in place, without copying it.
        this.#wholeLine(chunk, start, end, out);
        start = nl + 1;
        continue;
      }
      this.#append(chunk.subarray(start, end));
      if (nl === -1) break;
      this.#finishLine(out);
      start = nl + 1;
    }
    return out;
  }

  /** Flushes a final line that had no trailing newline. */
  end(): DecodedLine[] {
    const out: DecodedLine[] = [];
    if (this.#size > 0 || this.#discarding) this.#finishLine(out);
    return out;
  }

  /**
   * The common case of a chunk that holds several whole lines from `start` on, all within the
   * size limit: they are decoded with one call and split as text (a newline byte never occurs
   * inside a UTF-8 sequence, so this splits exactly where the bytes do). Returns where the rest of
   * the chunk goes on: `start` when it left the lines to the line-by-line path — for a single
   * line, a region over the limit, bytes that are not UTF-8 (each line is then judged on its own)
   * or a byte order mark (which per-line decoding drops at the start of each line).
   */
  #wholeLines(chunk: Uint8Array, start: number, out: DecodedLine[]): number {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last <= start || last - start > this.maxLineBytes) return start;
    let text: string;
    try {
      text = strict.decode(new Uint8Array(chunk.buffer, chunk.byteOffset + start, last - start));
    } catch {
      return start;
    }
    if (text.indexOf('\n') === -1 || text.includes('\uFEFF')) return start;
    for (let from = 0; from <= text.length; ) {
      let to = text.indexOf('\n', from);
      if (to === -1) to = text.length;
      const line =
        text.charCodeAt(to - 1) === CR && to > from ? text.slice(from, to - 1) : text.slice(from, to);
      if (line.length > 0 && line.trim() !== '') out.push({ ok: true, text: line });
      from = to + 1;
    }
    return last + 1;
  }

  /**
   * A line that lies whole in `chunk` between `start` and `end` (the newline): decoded from a plain
   * view of the chunk's memory (not `Buffer#subarray`, whose subclass views cost more), by the same
   * rules as a line assembled from pieces. Decoding copies the bytes into a string, so the caller may
   * reuse the chunk afterwards.
   */
  #wholeLine(chunk: Uint8Array, start: number, end: number, out: DecodedLine[]): void {
    if (end > start && chunk[end - 1] === CR) end -= 1;
    const length = end - start;
    if (length === 0) return;
    const line = new Uint8Array(chunk.buffer, chunk.byteOffset + start, length);
    if (length > this.maxLineBytes) {
      out.push({
        ok: false,
        error: oversized(length, this.maxLineBytes, copyBytes(line.subarray(0, HEAD_BYTES))),
      });
      return;
    }
    const decoded = decodeStrict(line);
    if (!decoded.ok || decoded.text.trim() !== '') out.push(decoded);
  }

  #append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#size += piece.length;
    if (this.#discarding) return;
    // One byte of slack for a CR that may precede the newline.
    if (this.#size > this.maxLineBytes + 1) {
      this.#discarding = true;
      this.#discardedHead = copyBytes(concat([...this.#parts, piece], Math.min(this.#size, HEAD_BYTES)));
      this.#parts = [];
      return;
    }
    // Copy: the caller may reuse the chunk's buffer after push() returns.
    this.#parts.push(copyBytes(piece));
  }

  #finishLine(out: DecodedLine[]): void {
    const size = this.#size;
    if (this.#discarding) {
      out.push({ ok: false, error: oversized(size, this.maxLineBytes, this.#discardedHead) });
    } else if (size > 0) {
      let line = concat(this.#parts, size);
      if (line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
      if (line.length > this.maxLineBytes) {
        out.push({ ok: false, error: oversized(line.length, this.maxLineBytes, line) });
      } else {
        const decoded = decodeStrict(line);
        if (decoded.ok) {
          if (decoded.text.trim() !== '') out.push(decoded);
        } else {
          out.push(decoded);
        }
      }
    }
    this.#parts = [];
    this.#size = 0;
    this.#discarding = false;
    this.#discardedHead = undefined;
  }
}

/** Decodes one frame as strict UTF-8; used by line and message-based transports alike. */
export function decodeStrict(bytes: Uint8Array): DecodedLine {
  try {
    return { ok: true, text: strict.decode(bytes) };
  } catch {
    return {
      ok: false,
      error: {
        reason: 'invalid-utf8',
        message: 'message is not valid UTF-8',
        excerpt: lenientExcerpt(bytes),
        bytes: bytes.length,
      },
    };
  }
}

/** The error reported for a frame beyond the size limit. */
export function oversized(bytes: number, limit: number, head?: Uint8Array): FrameError {
  return {
    reason: 'oversized',
    message: `message of ${bytes} bytes exceeds the limit of ${limit} bytes`,
    excerpt: head ? lenientExcerpt(head) : '',
    bytes,
    ...(head ? { head: lenient.decode(head.subarray(0, HEAD_BYTES)) } : {}),
  };
}

function concat(parts: Uint8Array[], limit: number): Uint8Array {
  if (parts.length === 1 && parts[0]!.length <= limit) return parts[0]!;
  const out = new Uint8Array(limit);
  let offset = 0;
  for (const part of parts) {
    if (offset >= limit) break;
    const take = part.subarray(0, limit - offset);
    out.set(take, offset);
    offset += take.length;
  }
  return out;
}

/** Frames one serialized JSON-RPC message as an ndjson line (JSON text never contains a raw newline). */
export function encodeNdjsonLine(json: string): string {
  return `${json}\n`;
}

/**
 * A copy of `bytes` that shares no memory with it. (`Buffer#slice` returns a view, so the
 * `Uint8Array` method is called explicitly: it copies for a Buffer too.)
 */
function copyBytes(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}
