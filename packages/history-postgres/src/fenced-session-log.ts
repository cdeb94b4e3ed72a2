import type { SessionLog } from '@acp-kit/sdk';
import type {
  ListSessionRecordsOptions,
  LogListener,
  LogPage,
  LogSubscription,
  MessageRef,
  NewLogEntry,
  NewSessionRecord,
  ReadLogOptions,
  SeqRange,
  SessionPatch,
  SessionRecord,
  SessionRecordPage,
  WriteBehindLimits,
} from '@acp-kit/sdk/adapter';
import type { PostgresSessionLog } from './postgres-session-log.js';
import type { SessionLease } from './session-leases.js';
import type { SessionNotOwnedError } from './session-not-owned.js';

type SessionId = SessionRecord['sessionId'];

/** Where a {@link FencedSessionLog} gets the lease each append is fenced by. */
export interface SessionFence {
  /**
   * The lease this replica holds on the session, to fence an append of `entries` with — taking
   * the session if it is free — or a rejection ({@link SessionNotOwnedError}) when this replica
   * may not write to it: it lost the lease, or another replica holds it.
   */
  leaseFor(sessionId: SessionId, entries: readonly NewLogEntry[]): SessionLease | Promise<SessionLease>;
  /**
   * An append fenced by `lease` failed with `error` (nothing of it may be assumed written): refused
   * by the database because the lease was lost ({@link SessionNotOwnedError}), or the database
   * could not be reached.
   */
  failed?(sessionId: SessionId, entries: readonly NewLogEntry[], lease: SessionLease, error: unknown): void;
}

/**
 * The session log as a replica's agent writes it: every append is fenced by this replica's lease
 * on the session ({@link PostgresSessionLog.appendAsOwner}). Without a current lease nothing is
 * written: a replica that lost its lease (paused past it, then taken over) or whose session is held
 * by another replica gets {@link SessionNotOwnedError} — never an unfenced write. A lease that
 * lapsed without this replica noticing is refused by the database (`locked`) instead of landing in
 * the new owner's turn. Everything else is the log's.
 */
export class FencedSessionLog implements SessionLog {
  readonly #log: PostgresSessionLog;
  readonly #fence: SessionFence;

  constructor(log: PostgresSessionLog, fence: SessionFence) {
    this.#log = log;
    this.#fence = fence;
  }

  /** The log underneath's suggestion to agents (see {@link PostgresSessionLog.writeBehind}). */
  get writeBehind(): WriteBehindLimits | undefined {
    return this.#log.writeBehind;
  }

  /** The log underneath. */
  get log(): PostgresSessionLog {
    return this.#log;
  }

  async append(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    const lease = await this.#fence.leaseFor(sessionId, entries);
    try {
      return await this.#log.appendAsOwner(sessionId, entries, lease);
    } catch (error) {
      this.#fence.failed?.(sessionId, entries, lease, error);
      throw error;
    }
  }

  createSession(session: NewSessionRecord): Promise<SessionRecord> {
    return this.#log.createSession(session);
  }

  getSession(sessionId: SessionId): Promise<SessionRecord | undefined> {
    return this.#log.getSession(sessionId);
  }

  listSessions(options?: ListSessionRecordsOptions): Promise<SessionRecordPage> {
    return this.#log.listSessions(options);
  }

  updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord> {
    return this.#log.updateSession(sessionId, patch);
  }

  deleteSession(sessionId: SessionId): Promise<boolean> {
    return this.#log.deleteSession(sessionId);
  }

  nextMessageId(sessionId: SessionId): Promise<MessageRef['messageId']> {
    return this.#log.nextMessageId(sessionId);
  }

  isClaimed(sessionId: SessionId, ref: MessageRef): Promise<boolean> {
    return this.#log.isClaimed(sessionId, ref);
  }

  read(sessionId: SessionId, options?: ReadLogOptions): Promise<LogPage> {
    return this.#log.read(sessionId, options);
  }

  subscribe(sessionId: SessionId, afterSeq: number, listener: LogListener): LogSubscription {
    return this.#log.subscribe(sessionId, afterSeq, listener);
  }

  close(): Promise<void> {
    return this.#log.close();
  }
}
