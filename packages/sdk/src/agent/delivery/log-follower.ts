import type { BackgroundWork, SessionId } from '@acp-kit/schema';
import type { LogEntry, LogSubscription, SessionLog } from '../../history/session-log.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { lastState } from './last-state.js';
import type { SessionActivity } from '../turns/turn-tracker.js';

/** What a {@link LogFollower} tells the session it follows for. */
export interface FollowerSink {
  /** Before the first entry: the activity (and background list) the log last reported. */
  started(last: { activity: SessionActivity; background?: BackgroundWork[] }): void;
  /** One entry, in seq order, once the log has it. */
  entry(entry: LogEntry): void;
  /** After each batch of entries, and once the subscription was lost. */
  moved(): void;
}

/**
 * One session's subscription to its log: it starts at the log's end when the session is loaded
 * (one subscription, started once), hands every later entry to the session in seq order, and
 * knows the position reached — the seq of the last entry handed on — so a caller can wait until
 * an entry it appended has reached the session's clients. A lost subscription (a log that failed)
 * wakes every waiter; the next {@link LogFollower.following} follows again from the position
 * reached, so nothing appended meanwhile is skipped.
 */
export class LogFollower {
  readonly #log: SessionLog;
  readonly #sessionId: SessionId;
  readonly #closed: AbortSignal;
  readonly #sink: FollowerSink;
  #position = 0;
  #following: Promise<void> | undefined;
  /** Whether {@link following} has resolved and the subscription was not lost since. */
  #ready = false;
  #subscription: LogSubscription | undefined;
  #lost: unknown;
  readonly #waiters = new Set<{ seq: number; resolve: () => void }>();

  /** Follows `sessionId` in `log` for `sink`, until `closed` aborts and {@link close} is called. */
  constructor(log: SessionLog, sessionId: SessionId, closed: AbortSignal, sink: FollowerSink) {
    this.#log = log;
    this.#sessionId = sessionId;
    this.#closed = closed;
    this.#sink = sink;
  }

  /** The seq of the last log entry handed on. */
  get position(): number {
    return this.#position;
  }

  /** Whether the subscription was lost (the log failed while followed). */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /**
   * Starts following the log (once); resolves when the position and last state are known. Fails
   * with -32002 while the session is not in the log.
   */
  following(): Promise<void> {
    if (this.#following === undefined) {
      const following: Promise<void> = this.#follow().then(
        () => {
          if (this.#following === following) this.#ready = true;
        },
        (error: unknown) => {
          if (this.#following === following) this.#following = undefined;
          throw error;
        },
      );
      this.#following = following;
    }
    return this.#following;
  }

  /**
   * Whether {@link following} resolved and the subscription holds: a caller that would only wait
   * for it need not (a streamed chunk's write checks this instead of awaiting a settled promise).
   */
  get ready(): boolean {
    return this.#ready;
  }

  async #follow(): Promise<void> {
    const record = await this.#log.getSession(this.#sessionId);
    if (record === undefined) {
      throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId: this.#sessionId });
    }
    // After a lost subscription, following starts again where it stopped, so the attached clients
    // get every entry appended meanwhile; the first time, at the log's end.
    const resumed = this.#lost !== undefined;
    const from = resumed ? this.#position : record.lastSeq;
    if (!resumed) {
      this.#sink.started(await lastState(this.#log, this.#sessionId, record.lastSeq));
      this.#position = record.lastSeq;
    }
    if (this.#closed.aborted) return;
    this.#lost = undefined;
    this.#subscription = this.#log.subscribe(this.#sessionId, from, {
      entries: (batch) => this.#handOn(batch),
      error: (error) => {
        this.#lost = error ?? new Error('the log subscription was lost');
        this.#following = undefined;
        this.#ready = false;
        this.#wakeAll();
        this.#sink.moved();
      },
    });
  }

  #handOn(batch: readonly LogEntry[]): void {
    for (const entry of batch) {
      this.#position = entry.seq;
      this.#sink.entry(entry);
    }
    for (const waiter of this.#waiters) {
      if (waiter.seq <= this.#position) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
    this.#sink.moved();
  }

  /** Resolves once every entry up to `seq` was handed on (at once when lost or closed). */
  reached(seq: number): Promise<void> {
    if (seq <= this.#position || this.#lost !== undefined || this.#closed.aborted) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.add({ seq, resolve }));
  }

  /** Stops following and wakes every waiter. */
  close(): void {
    this.#subscription?.close();
    this.#subscription = undefined;
    this.#wakeAll();
  }

  #wakeAll(): void {
    for (const waiter of this.#waiters) waiter.resolve();
    this.#waiters.clear();
  }
}
