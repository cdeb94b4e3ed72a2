import type { SessionUpdate } from '@acp-kit/schema';
import { CHUNK_OF } from './message-updates.js';
import type { LogEntry } from './session-log.js';

/** The chunk update tags (from the generated update-kind table) whose plain text runs are packed. */
const CHUNK_KINDS: ReadonlySet<string> = new Set(Object.values(CHUNK_OF));

/** The keys of a plain text chunk update, in order. */
const CHUNK_KEYS = ['sessionUpdate', 'messageId', 'content'];

/** Chunks per joined block of a run's text. */
const BLOCK = 64;

/**
 * The text of a plain text chunk: an update with exactly `sessionUpdate` (a chunk kind),
 * `messageId` and `content`, in that order, whose content has exactly `type: 'text'` and `text`,
 * in that order; undefined for any other update. Only such an update can be rebuilt from its text
 * alone with the same JSON, key order included.
 */
function plainChunkText(update: SessionUpdate): string | undefined {
  const u = update as { sessionUpdate?: unknown; messageId?: unknown; content?: unknown };
  if (!CHUNK_KINDS.has(u.sessionUpdate as string) || typeof u.messageId !== 'string') return undefined;
  const content = u.content as { type?: unknown; text?: unknown } | null;
  if (typeof content !== 'object' || content === null || content.type !== 'text') return undefined;
  if (typeof content.text !== 'string') return undefined;
  let n = 0;
  for (const key in u) if (key !== CHUNK_KEYS[n++]) return undefined;
  if (n !== 3) return undefined;
  n = 0;
  for (const key in content) if (key !== (n++ === 0 ? 'type' : 'text')) return undefined;
  return n === 2 ? content.text : undefined;
}

/**
 * Consecutive plain text chunks of one message, kept for replay: their texts joined into
 * flat blocks of {@link BLOCK} chunks and each chunk's end offset in its block, instead of three
 * objects and a string per chunk. A streamed chunk of 20–80 characters then costs its characters
 * and 4 bytes, not about 220 bytes.
 */
class TextRun {
  count = 0;
  readonly #blocks: string[] = [];
  /** The texts of the last, unfinished block (none once the run is sealed). */
  #pending: string[] = [];
  #ends = new Uint32Array(16);

  constructor(
    /** The index (seq − 1) of the run's first entry. */
    readonly first: number,
    readonly sessionUpdate: string,
    readonly messageId: string,
  ) {}

  /** Whether a plain text chunk with this update continues the run. */
  continues(update: SessionUpdate): boolean {
    const u = update as { sessionUpdate: string; messageId?: unknown };
    return u.sessionUpdate === this.sessionUpdate && u.messageId === this.messageId;
  }

  add(text: string): void {
    const i = this.count;
    if (i === this.#ends.length) {
      const grown = new Uint32Array(i * 2);
      grown.set(this.#ends);
      this.#ends = grown;
    }
    this.#ends[i] = (i % BLOCK === 0 ? 0 : this.#ends[i - 1]!) + text.length;
    this.#pending.push(text);
    this.count = i + 1;
    if (this.#pending.length === BLOCK) {
      this.#blocks.push(this.#pending.join(''));
      this.#pending.length = 0;
    }
  }

  /**
   * The run is over (another entry follows it): its last texts are joined and its offsets trimmed,
   * so a finished run keeps nothing but its blocks and offsets.
   */
  seal(): void {
    if (this.#pending.length > 0) this.#blocks.push(this.#pending.join(''));
    this.#pending = [];
    if (this.#ends.length > this.count) this.#ends = this.#ends.slice(0, this.count);
  }

  /** The entry at `index` within the run, rebuilt. */
  entry(index: number): LogEntry {
    const block = Math.floor(index / BLOCK);
    const within = index % BLOCK;
    const text =
      block === this.#blocks.length
        ? this.#pending[within]!
        : this.#blocks[block]!.slice(within === 0 ? 0 : this.#ends[index - 1]!, this.#ends[index]!);
    return {
      seq: this.first + index + 1,
      update: {
        sessionUpdate: this.sessionUpdate,
        messageId: this.messageId,
        content: { type: 'text', text },
      } as SessionUpdate,
      retain: true,
    };
  }
}

/**
 * A session's log entries, dense by seq (the entry at index `i` has seq `i + 1`), as the memory log
 * keeps them. Runs of plain text chunks of one message kept for replay are packed
 * ({@link TextRun}); every other entry, live-only chunks included, is kept as appended. Reads
 * rebuild packed chunks with the same JSON they were appended with, so what a replay sends does
 * not change, only what streaming costs in memory.
 */
export class PackedEntries {
  readonly #items: (LogEntry | TextRun)[] = [];
  /** The index of each item's first entry, ascending. */
  readonly #starts: number[] = [];
  #length = 0;

  /** How many entries: the seq of the last one. */
  get length(): number {
    return this.#length;
  }

  /** Appends `entry`, whose seq must be `length + 1`. */
  push(entry: LogEntry): void {
    const index = this.#length;
    if (entry.seq !== index + 1) throw new RangeError(`expected seq ${index + 1}, got ${entry.seq}`);
    // Only history kept for replay is packed: a live-only entry is read by a follower catching up,
    // never replayed, and is kept as the agent made it (content it shares between chunks stays shared).
    const text = entry.json === undefined && entry.retain ? plainChunkText(entry.update) : undefined;
    if (text !== undefined) {
      const last = this.#items.at(-1);
      if (last instanceof TextRun) {
        if (last.continues(entry.update)) {
          last.add(text);
          this.#length = index + 1;
          return;
        }
      } else if (last !== undefined && last.json === undefined && last.retain) {
        // A second chunk of the message: the two become a run (a lone chunk stays as it came).
        const previous = plainChunkText(last.update);
        const u = entry.update as { sessionUpdate: string; messageId: string };
        const p = last.update as { sessionUpdate: string; messageId?: unknown };
        if (previous !== undefined && p.sessionUpdate === u.sessionUpdate && p.messageId === u.messageId) {
          const run = new TextRun(index - 1, u.sessionUpdate, u.messageId);
          run.add(previous);
          run.add(text);
          this.#items[this.#items.length - 1] = run;
          this.#length = index + 1;
          return;
        }
      }
    }
    this.#add(index, entry);
  }

  /**
   * Up to `limit` entries from index `start` (seq `start + 1`) on; with `retainedOnly`, only those
   * kept for replay.
   */
  read(start: number, limit: number, retainedOnly: boolean): LogEntry[] {
    const out: LogEntry[] = [];
    if (start >= this.#length) return out;
    for (let item = this.#itemAt(start); item < this.#items.length && out.length < limit; item++) {
      const found = this.#items[item]!;
      if (!(found instanceof TextRun)) {
        if (!retainedOnly || found.retain) out.push(found);
        continue;
      }
      // A run is kept for replay: every entry of it is read either way.
      for (let i = Math.max(0, start - found.first); i < found.count && out.length < limit; i++) {
        out.push(found.entry(i));
      }
    }
    return out;
  }

  #add(index: number, item: LogEntry | TextRun): void {
    const last = this.#items.at(-1);
    if (last instanceof TextRun) last.seal();
    this.#items.push(item);
    this.#starts.push(index);
    this.#length = index + 1;
  }

  /** The item holding the entry at `index` (binary search over the items' first indexes). */
  #itemAt(index: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.#starts[mid]! <= index) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}
