import { HistoryStoreError } from '@acp-kit/sdk';
import type { LeaseKeeper } from './lease-keeper.js';
import type { OwnershipDatabase } from './ownership-database.js';
import type { PostgresSessionLog } from './postgres-session-log.js';
import { SessionNotOwnedError } from './session-not-owned.js';
import type { LogEntry, NewLogEntry } from '@acp-kit/sdk/adapter';

type SessionId = string;

/** A turn-ending idle still to be written. */
interface OwedIdle {
  readonly update: LogEntry['update'];
  attempts: number;
  timer: NodeJS.Timeout | undefined;
  /** The write in flight, if any. */
  writing: Promise<void> | undefined;
}

/** The first retry of an owed idle after this long, doubling up to {@link OWED_RETRY_MAX_MS}. */
const OWED_RETRY_MS = 100;
const OWED_RETRY_MAX_MS = 2000;

/**
 * Turn-ending idles whose fenced append failed while the database could not be reached (or the
 * lease race was lost), by session. Left unwritten, the turn would stay open for every client for
 * good; so each is owed: written once as soon as it can be (retried with backoff), before anything
 * else this replica appends to the session, and only if the log's last state is not idle already
 * (the failed append may have committed before its connection broke).
 */
export class OwedIdles {
  readonly #db: OwnershipDatabase;
  readonly #keeper: LeaseKeeper;
  readonly #log: PostgresSessionLog;
  readonly #owed = new Map<SessionId, OwedIdle>();

  constructor(db: OwnershipDatabase, keeper: LeaseKeeper, log: PostgresSessionLog) {
    this.#db = db;
    this.#keeper = keeper;
    this.#log = log;
  }

  /**
   * Before an append of `entries` to the session: the idle owed to it is written first, or dropped
   * when `entries` end the turn themselves.
   */
  async before(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<void> {
    const owed = this.#owed.get(sessionId);
    if (owed === undefined) return;
    if (owed.writing === undefined && turnEnd(entries) !== undefined) this.#forget(sessionId, owed);
    else await this.#write(sessionId);
  }

  /** A fenced append of `entries` failed with `error`: a turn-ending idle that may pass later is owed. */
  failed(sessionId: SessionId, entries: readonly NewLogEntry[], error: unknown): void {
    const update = turnEnd(entries);
    if (update === undefined || this.#db.closed || !mayPass(error)) return;
    const previous = this.#owed.get(sessionId);
    if (previous !== undefined) this.#forget(sessionId, previous);
    const owed: OwedIdle = { update, attempts: 0, timer: undefined, writing: undefined };
    this.#owed.set(sessionId, owed);
    this.#retry(sessionId, owed);
  }

  /** Drops every owed idle (the ownership is closing). */
  clear(): void {
    for (const [sessionId, owed] of [...this.#owed]) this.#forget(sessionId, owed);
  }

  #retry(sessionId: SessionId, owed: OwedIdle): void {
    const delay = Math.min(OWED_RETRY_MAX_MS, OWED_RETRY_MS * 2 ** owed.attempts);
    owed.timer = setTimeout(() => {
      owed.timer = undefined;
      this.#write(sessionId).catch(() => undefined);
    }, delay).unref();
  }

  #forget(sessionId: SessionId, owed: OwedIdle): void {
    clearTimeout(owed.timer);
    if (this.#owed.get(sessionId) === owed) this.#owed.delete(sessionId);
  }

  /**
   * Writes the idle owed to a session, once: only if the log's last state is not idle already.
   * With the lease lost meanwhile, the session is taken over if it is free, which ends the turn the
   * same way; if another replica holds it, that replica ended it. Throws while the database still
   * cannot be reached (and tries again later).
   */
  #write(sessionId: SessionId): Promise<void> {
    const owed = this.#owed.get(sessionId);
    if (owed === undefined) return Promise.resolve();
    owed.writing ??= (async () => {
      try {
        const lease = this.#keeper.leaseOf(sessionId);
        if (lease === undefined) {
          // A takeover (if the session is free) ends the turn if it is still open.
          await this.#keeper.claim(sessionId);
        } else {
          const last = await this.#log.lastState(sessionId);
          if ((last?.update as { state?: unknown } | undefined)?.state !== 'idle') {
            await this.#log.appendAsOwner(sessionId, [{ update: owed.update, retain: false }], lease);
          }
        }
        this.#forget(sessionId, owed);
      } catch (error) {
        if (error instanceof SessionNotOwnedError) {
          // Lapsed while the database was away: take the session back if nobody else did.
          const lease = this.#keeper.leaseOf(sessionId);
          if (lease !== undefined) this.#keeper.lose(lease);
        } else if (!mayPass(error) || this.#db.closed) {
          this.#forget(sessionId, owed);
          throw error;
        }
        owed.attempts += 1;
        if (this.#owed.get(sessionId) === owed) this.#retry(sessionId, owed);
        throw error;
      } finally {
        owed.writing = undefined;
      }
    })();
    return owed.writing;
  }
}

/** The update of the last state in `entries` if it is `idle` (the turn's end), else undefined. */
function turnEnd(entries: readonly NewLogEntry[]): LogEntry['update'] | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const update = entries[i]!.update as { sessionUpdate: string; state?: unknown };
    if (update.sessionUpdate === 'state_update')
      return update.state === 'idle' ? entries[i]!.update : undefined;
  }
  return undefined;
}

/** Whether a failed append may succeed later: the database was unreachable, or lost the lease race. */
function mayPass(error: unknown): boolean {
  if (error instanceof SessionNotOwnedError) return true;
  return error instanceof HistoryStoreError && error.transient;
}
