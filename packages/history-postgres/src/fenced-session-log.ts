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
  SessionLog,
  SessionPatch,
  SessionRecord,
  SessionRecordPage,
  WriteBehindLimits,
} from '@acp-kit/sdk';
import type { PostgresSessionLog } from './postgres-session-log.js';
import type { SessionLease } from './session-leases.js';

type SessionId = SessionRecord['sessionId'];

/**
 * The session log as a replica's agent writes it: an append to a session this replica owns is
 * fenced by its lease ({@link PostgresSessionLog.appendAsOwner}), so once another replica has taken
 * the session over, a write from here — a turn still running on a replica that lost its lease
 * without noticing — fails with `locked` instead of landing in the other owner's turn. Everything
 * else is the log's.
 */
export class FencedSessionLog implements SessionLog {
  readonly #log: PostgresSessionLog;
  readonly #leaseOf: (sessionId: SessionId) => SessionLease | undefined;

  constructor(log: PostgresSessionLog, leaseOf: (sessionId: SessionId) => SessionLease | undefined) {
    this.#log = log;
    this.#leaseOf = leaseOf;
  }

  /** The log underneath's suggestion to agents (see {@link PostgresSessionLog.writeBehind}). */
  get writeBehind(): WriteBehindLimits | undefined {
    return this.#log.writeBehind;
  }

  /** The log underneath. */
  get log(): PostgresSessionLog {
    return this.#log;
  }

  append(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    const lease = this.#leaseOf(sessionId);
    return lease === undefined
      ? this.#log.append(sessionId, entries)
      : this.#log.appendAsOwner(sessionId, entries, lease);
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
