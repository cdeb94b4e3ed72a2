import type { NewLogEntry, SeqRange, WriteBehindLimits } from '../../history/session-log.js';
import { turnEndAfterLoss } from './turn-end-after-loss.js';

/** Throws a TypeError naming the field unless both limits are positive integers. */
export function checkWriteBehind(limits: WriteBehindLimits, name = 'writeBehind'): void {
  if (typeof limits !== 'object' || limits === null) {
    throw new TypeError(`${name}: expected { entries, bytes } or false, got ${String(limits)}`);
  }
  for (const field of ['entries', 'bytes'] as const) {
    const value = limits[field];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`${name}.${field}: expected a positive integer, got ${String(value)}`);
    }
  }
}

/** What every write-behind call answered at once resolves with: one settled promise for all. */
const ANSWERED: Promise<undefined> = Promise.resolve(undefined);

const noop = (): void => undefined;

/** The calls of no append. */
const NO_CALLS: readonly Pending[] = [];

/** One call waiting to be written. */
interface Pending {
  readonly entries: readonly NewLogEntry[];
  readonly bytes: number;
  /** Written behind: its caller was (or will be) answered before the log has it. */
  readonly behind: boolean;
  /** Its caller wants the seq range (it did not ask to be written behind). */
  readonly range: boolean;
  /** Has a claim: written alone, so its own failure fails nobody else. */
  readonly alone: boolean;
  /** Its caller got its answer (a call written behind, answered within the limits). */
  answered: boolean;
  /** Written behind and answered before the log had it: counts against the limits until then. */
  ahead: boolean;
  readonly resolve: (range: SeqRange | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes one session's appends to its log in call order, one log append in flight at a time;
 * calls made while one is in flight are written together by the next append (one atomic step).
 *
 * With {@link WriteBehindLimits}, a call marked `behind` (a streamed chunk) resolves as soon as it
 * is queued, while the session has no more than the limits written behind; past them it resolves
 * once enough of them are in the log. Clients only ever see what the log has, so an update that
 * never reaches the log was never reported. When a write with such updates fails, they and every
 * update queued after them are not written (the log would otherwise hold a stream with a hole),
 * calls queued behind them fail with the same error, and the next call on the session throws it —
 * once. Except a turn end: the first call queued behind the loss that ends the turn (its last
 * state update says `idle`), or the next call when it does, is still written — as a turn that
 * failed (see {@link turnEndAfterLoss}) — and answered as that write goes; the loss is then
 * reported by the turn end, not thrown. Dropped unattempted, it would leave the turn open in the
 * log for every client, and no log or ownership could keep it to write later. Every other call
 * resolves once the log has it (and everything before it), as without limits.
 */
export class SessionWriter {
  readonly #append: (entries: readonly NewLogEntry[]) => Promise<SeqRange>;
  readonly #limits: WriteBehindLimits | undefined;
  readonly #queue: Pending[] = [];
  #writing = false;
  /** Entries and bytes of calls answered before the log had them, not yet in the log. */
  #aheadEntries = 0;
  #aheadBytes = 0;
  /** Calls written behind but over the limits, answered in order as the log catches up. */
  readonly #waiting: Pending[] = [];
  /** A failed write of updates written behind, not yet reported to the agent. */
  #failure: { error: unknown } | undefined;
  /** The calls of the append in flight (one at a time), for its two callbacks below. */
  #group: readonly Pending[] = NO_CALLS;
  // Made once per writer, not once per append: a streaming turn appends every chunk.
  readonly #onWritten = (range: SeqRange): void => this.#written(this.#takeGroup(), range);
  readonly #onFailed = (error: unknown): void => this.#failed(this.#takeGroup(), error);

  constructor(append: (entries: readonly NewLogEntry[]) => Promise<SeqRange>, limits?: WriteBehindLimits) {
    this.#append = append;
    this.#limits = limits;
  }

  /**
   * Queues `entries` as one atomic append, after everything queued before. Resolves with their
   * seq range once the log has them — or, for a `behind` call, undefined: with limits as soon as
   * it is queued within them, without once the log has them. Throws a failure of earlier updates
   * written behind (once), unless `entries` end the turn: then they are written as a turn that
   * failed.
   */
  write(entries: readonly NewLogEntry[], behind: boolean, bytes: number): Promise<SeqRange | undefined> {
    if (this.#failure !== undefined) {
      const { error } = this.#failure;
      this.#failure = undefined;
      // A turn end is written all the same, saying the turn failed; anything else gets the error.
      const end = turnEndAfterLoss(entries);
      if (end === undefined) return Promise.reject(error);
      entries = end;
    }
    const alone = entries.some((entry) => entry.claim !== undefined);
    const writeBehind = behind && !alone && this.#limits !== undefined;
    // The hot path (a streamed chunk within the limits, nothing waiting before it): answered now,
    // with one promise shared by all such calls instead of a promise and two callbacks each.
    if (writeBehind && this.#waiting.length === 0 && this.#fits(entries.length, bytes)) {
      this.#aheadEntries += entries.length;
      this.#aheadBytes += bytes;
      this.#queue.push({
        entries,
        bytes,
        behind: true,
        range: false,
        alone: false,
        answered: true,
        ahead: true,
        resolve: noop,
        reject: noop,
      });
      this.#pump();
      return ANSWERED;
    }
    return new Promise<SeqRange | undefined>((resolve, reject) => {
      const call: Pending = {
        entries,
        bytes,
        behind: writeBehind,
        range: !behind,
        alone,
        answered: false,
        ahead: false,
        resolve,
        reject,
      };
      this.#queue.push(call);
      if (writeBehind) {
        this.#waiting.push(call);
        this.#answerWaiting();
      }
      this.#pump();
    });
  }

  /**
   * Whether a call of `entries` entries and `bytes` bytes fits ahead of the log: within the limits,
   * or alone (one always fits, however large: it is the only one ahead).
   */
  #fits(entries: number, bytes: number): boolean {
    const limits = this.#limits!;
    return (
      this.#aheadEntries === 0 ||
      (this.#aheadEntries + entries <= limits.entries && this.#aheadBytes + bytes <= limits.bytes)
    );
  }

  /** Answers the calls written behind that now fit within the limits, in call order. */
  #answerWaiting(): void {
    while (this.#waiting.length > 0) {
      const call = this.#waiting[0]!;
      if (!this.#fits(call.entries.length, call.bytes)) return;
      this.#waiting.shift();
      this.#aheadEntries += call.entries.length;
      this.#aheadBytes += call.bytes;
      call.ahead = true;
      call.answered = true;
      call.resolve(undefined);
    }
  }

  #pump(): void {
    if (this.#writing || this.#queue.length === 0) return;
    const group = this.#take();
    this.#writing = true;
    const entries = group.length === 1 ? group[0]!.entries : group.flatMap((call) => call.entries);
    let appended: Promise<SeqRange>;
    try {
      appended = this.#append(entries);
    } catch (error) {
      appended = Promise.reject(error);
    }
    this.#group = group;
    appended.then(this.#onWritten, this.#onFailed);
  }

  /** The in-flight append's calls, let go of by the writer (it keeps none once they are answered). */
  #takeGroup(): readonly Pending[] {
    const group = this.#group;
    this.#group = NO_CALLS;
    return group;
  }

  /** The next group: the head call alone if it claims a message, else the calls up to the next that does. */
  #take(): Pending[] {
    const head = this.#queue[0]!;
    if (head.alone) return this.#queue.splice(0, 1);
    let n = 1;
    while (n < this.#queue.length && !this.#queue[n]!.alone) n++;
    return this.#queue.splice(0, n);
  }

  #written(group: readonly Pending[], range: SeqRange): void {
    let first = range.first;
    for (const call of group) {
      const last = first + call.entries.length - 1;
      if (call.behind) this.#release(call);
      // Written behind and answered already, or answered now that the log has it.
      if (!call.answered) {
        call.answered = true;
        call.resolve(call.range ? { first, last } : undefined);
      }
      first = last + 1;
    }
    if (this.#limits !== undefined) this.#answerWaiting();
    this.#next();
  }

  #failed(group: readonly Pending[], error: unknown): void {
    const lost = group.some((call) => call.behind);
    // Updates written behind are lost: nothing queued after them is written either…
    const later = lost ? this.#queue.splice(0) : [];
    // …but the first turn end among them, saying the turn failed: the turn must not stay open.
    const ending = this.#turnEndIn(later);
    if (ending !== undefined) this.#queue.push(ending.written);
    const dropped = [...group, ...later.filter((call) => call !== ending?.call)];
    for (const call of dropped) if (call.behind) this.#release(call);
    let told = false;
    for (const call of dropped) {
      if (call.answered) continue;
      call.answered = true;
      call.reject(error);
      told = true;
    }
    // Every caller was answered already: the agent learns of the loss at its next call (unless
    // the turn end being written reports it).
    if (lost && !told && ending === undefined) this.#failure = { error };
    if (this.#limits !== undefined) this.#answerWaiting();
    this.#next();
  }

  /**
   * The first call among `calls` (queued behind lost updates) that ends the turn, and the call to
   * write in its place: its turn end alone, as a turn that failed, answering the same caller.
   */
  #turnEndIn(calls: readonly Pending[]): { call: Pending; written: Pending } | undefined {
    for (const call of calls) {
      if (call.answered) continue;
      const entries = turnEndAfterLoss(call.entries);
      if (entries === undefined) continue;
      const written: Pending = {
        entries,
        bytes: call.bytes,
        behind: false,
        range: call.range,
        alone: false,
        answered: false,
        ahead: false,
        resolve: call.resolve,
        reject: call.reject,
      };
      return { call, written };
    }
    return undefined;
  }

  /** A call written behind is in the log, or dropped: it no longer counts against the limits. */
  #release(call: Pending): void {
    if (call.ahead) {
      call.ahead = false;
      this.#aheadEntries -= call.entries.length;
      this.#aheadBytes -= call.bytes;
      return;
    }
    const waiting = this.#waiting.indexOf(call);
    if (waiting >= 0) this.#waiting.splice(waiting, 1);
  }

  #next(): void {
    this.#writing = false;
    this.#pump();
  }
}
