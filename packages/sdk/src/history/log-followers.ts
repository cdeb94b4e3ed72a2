import type { SessionId } from '@acp-kit/schema';
import { HistoryStoreError } from './errors.js';
import type { LogEntry, LogListener, LogSubscription, ReadLogOptions, LogPage } from './session-log.js';

/** Entries read per page while a follower catches up. */
const CATCH_UP_PAGE = 1024;
/** The first retry of a catch-up read that failed transiently, doubling up to {@link RETRY_MAX_MS}. */
const RETRY_MS = 50;
const RETRY_MAX_MS = 2000;

/**
 * Whether a failed read may succeed if tried again: the storage could not be reached (`io`, as
 * while a database restarts) or was busy (`locked`). Anything else (the session is gone, the store
 * closed, damaged data) ends the follower.
 */
function transient(error: unknown): boolean {
  return error instanceof HistoryStoreError && error.transient;
}

/** A settled promise: what a published batch's hand-over is chained on. */
const SETTLED: Promise<void> = Promise.resolve();

type Reader = (sessionId: SessionId, options: ReadLogOptions) => Promise<LogPage>;

class Follower implements LogSubscription {
  #position: number;
  #catchingUp = false;
  #missed = false;
  #closed = false;

  readonly #owner: LogFollowers;
  readonly #listener: LogListener;
  readonly #read: Reader;

  constructor(
    owner: LogFollowers,
    readonly sessionId: SessionId,
    afterSeq: number,
    listener: LogListener,
    read: Reader,
  ) {
    this.#owner = owner;
    this.#listener = listener;
    this.#read = read;
    this.#position = afterSeq;
    queueMicrotask(() => void this.#catchUp());
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#owner.remove(this);
  }

  /** New entries committed through this store object, in order. */
  published(batch: readonly LogEntry[]): void {
    if (this.#closed) return;
    if (this.#catchingUp) {
      this.#missed = true;
      return;
    }
    // A reaction of a settled promise, not `queueMicrotask`: the same place in the microtask queue,
    // without the async resource and bound function Node's `queueMicrotask` makes (once per chunk
    // streamed, for every follower of its session).
    void SETTLED.then(() => this.#take(batch));
  }

  fail(error: unknown): void {
    if (this.#closed) return;
    this.close();
    queueMicrotask(() => this.#listener.error?.(error));
  }

  #take(batch: readonly LogEntry[]): void {
    if (this.#closed) return;
    if (this.#catchingUp) {
      this.#missed = true;
      return;
    }
    let start = 0;
    while (start < batch.length && batch[start]!.seq <= this.#position) start += 1;
    if (start === batch.length) return;
    if (batch[start]!.seq !== this.#position + 1) {
      // A gap (an append this follower did not see published): read it from the store.
      void this.#catchUp();
      return;
    }
    const fresh = start === 0 ? batch : batch.slice(start);
    this.#position = fresh.at(-1)!.seq;
    try {
      this.#listener.entries(fresh);
    } catch (error) {
      this.fail(error);
    }
  }

  async #catchUp(): Promise<void> {
    if (this.#catchingUp || this.#closed) return;
    this.#catchingUp = true;
    try {
      for (let failures = 0; ; ) {
        this.#missed = false;
        let page: LogPage;
        try {
          page = await this.#read(this.sessionId, { afterSeq: this.#position, limit: CATCH_UP_PAGE });
        } catch (error) {
          // The storage is unreachable for now (a database restarting): the follower stays, and
          // reads from where it is once it can, so nothing committed meanwhile is skipped.
          if (!transient(error) || this.#closed) throw error;
          const delay = Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** failures++);
          await new Promise((resolve) => setTimeout(resolve, delay).unref?.());
          if (this.#closed) return;
          continue;
        }
        failures = 0;
        if (this.#closed) return;
        if (page.entries.length > 0) {
          this.#position = page.entries.at(-1)!.seq;
          this.#listener.entries(page.entries);
          if (this.#closed) return;
          continue;
        }
        // Nothing more in the store; an append published while this read was in flight may not
        // be in it, so read once more before following live.
        if (!this.#missed) break;
      }
    } catch (error) {
      this.#catchingUp = false;
      this.fail(error);
      return;
    }
    this.#catchingUp = false;
  }
}

/**
 * The subscribers of a store's session logs: implements {@link SessionLog.subscribe} for any store
 * that can `read` and calls {@link LogFollowers.published} after each committed append. A follower
 * first reads its backlog, then takes published batches directly (no read per append); a batch
 * that does not continue its position (an append it missed) makes it read from the store again,
 * so it never skips or repeats an entry. A read that fails because the storage is unreachable or
 * busy for now (`io`, `locked`) is tried again with backoff, the follower kept; any other failure
 * ends the follower with that error.
 */
export class LogFollowers {
  readonly #bySession = new Map<SessionId, Set<Follower>>();

  /** Starts following `sessionId` after `afterSeq`. */
  subscribe(sessionId: SessionId, afterSeq: number, listener: LogListener, read: Reader): LogSubscription {
    const follower = new Follower(this, sessionId, afterSeq, listener, read);
    const set = this.#bySession.get(sessionId) ?? new Set<Follower>();
    this.#bySession.set(sessionId, set);
    set.add(follower);
    return follower;
  }

  /** Call after an append committed, with the entries as stored. */
  published(sessionId: SessionId, batch: readonly LogEntry[]): void {
    const set = this.#bySession.get(sessionId);
    if (set === undefined) return;
    for (const follower of set) follower.published(batch);
  }

  /** Ends every subscription to one session (it was deleted), or to all (the store closed). */
  fail(error: unknown, sessionId?: SessionId): void {
    const sets = sessionId === undefined ? [...this.#bySession.values()] : [this.#bySession.get(sessionId)];
    for (const set of sets) for (const follower of [...(set ?? [])]) follower.fail(error);
  }

  /** @internal */
  remove(follower: Follower): void {
    const set = this.#bySession.get(follower.sessionId);
    set?.delete(follower);
    if (set?.size === 0) this.#bySession.delete(follower.sessionId);
  }
}
