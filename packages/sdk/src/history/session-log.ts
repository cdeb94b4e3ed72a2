/**
 * # The session log contract
 *
 * A {@link SessionLog} is the one place an agent's sessions live: per session, an append-only log of
 * `session/update` bodies, numbered by the store, plus a small directory record (cwd, title,
 * timestamps, config) for `session/list`, `session/close` and `session/delete`. History, live
 * delivery and replay are all read from it; every implementation must keep these rules (the
 * contract suite in `@acp-kit/sdk/testing` checks each one):
 *
 * 1. **Sequence numbers.** `append(sessionId, entries)` gives the entries consecutive sequence
 *    numbers `first..last` following the session's previous last entry; a session's first entry has
 *    seq 1. Numbers are never reused or reordered, also across a restart and under concurrent
 *    appends (each call is one step: its entries are contiguous, never interleaved with another call's).
 * 2. **Atomic appends with ID uniqueness.** An entry may `claim` a message (`{kind, messageId}`): the
 *    append fails with `duplicate_message` — and appends nothing at all — if that message was claimed
 *    before in the session, or twice in the same call. Claims are per kind. An ID handed out by
 *    `nextMessageId` may be claimed (once); `nextMessageId` never hands out an ID that was issued or
 *    claimed before in the session, also after a restart.
 * 3. **Retention.** Each entry is `retain: true` (kept for replay) or `retain: false` (live-only: it
 *    exists for the clients following the log — on this process or another — and is never replayed).
 *    `read` with `retainedOnly` skips live-only entries; stores may drop live-only entries that every
 *    follower has passed, but never a retained one.
 * 4. **Reads.** `read(sessionId, {afterSeq, limit})` returns entries with `seq > afterSeq` in order, at
 *    most `limit` (capped at {@link MAX_PAGE_SIZE}), and the session's `lastSeq` when it read. Entries
 *    come back as they were appended (a store may copy them; callers must not mutate them).
 * 5. **Subscriptions.** `subscribe(sessionId, afterSeq, listener)` calls `listener.entries` with every
 *    entry after `afterSeq` exactly once, in seq order, without gaps — first the backlog, then new
 *    appends made through this store object — in batches, never synchronously inside `subscribe` or
 *    `append`. It stops after `close()`. If the session does not exist, is deleted, or the store
 *    closes, `listener.error` is called once with a {@link HistoryStoreError} and nothing follows.
 *    So "read to N, then follow from N + 1" is one call: `subscribe(sessionId, N, …)`.
 * 6. **Directory.** `createSession` fails with `session_exists` for a taken ID; `listSessions` pages
 *    in creation order with an opaque cursor; `updateSession` changes cwd, title or config and bumps
 *    `updatedAt`, as every append does; `deleteSession` removes the record and its log.
 * 7. **Errors** are {@link HistoryStoreError}s with a code; bad arguments fail with `invalid_argument`
 *    and a JSON pointer, unknown sessions with `session_not_found`, a closed store with `closed`.
 */
import type { MessageId, SessionId, SessionUpdate } from '@acp-kit/schema';
import type { HistorySession, MessageRef } from './history-store.js';

/** One entry to append to a session's log. */
export interface NewLogEntry {
  /** The `session/update` body, exactly as clients will receive it. */
  readonly update: SessionUpdate;
  /** Keep it for replay (default `true`); `false` makes it live-only. */
  readonly retain?: boolean;
  /** The message this entry opens; the append fails if it was claimed before in the session. */
  readonly claim?: MessageRef;
}

/** One entry of a session's log, as read back. */
export interface LogEntry {
  /** Position in the session's log: from 1, consecutive, never reused. */
  readonly seq: number;
  /** The `session/update` body. */
  readonly update: SessionUpdate;
  /** Whether it is kept for replay. */
  readonly retain: boolean;
  /**
   * The update's JSON text as the log stored it (it parses to `update`), when the log keeps text
   * and that text holds no line break; absent otherwise. A reader may send it instead of
   * serializing `update` again.
   */
  readonly json?: string;
}

/** The sequence numbers one `append` call was given (inclusive). */
export interface SeqRange {
  readonly first: number;
  readonly last: number;
}

/** Options of {@link SessionLog.read}. */
export interface ReadLogOptions {
  /** Entries with `seq` greater than this (default 0: from the start). */
  readonly afterSeq?: number;
  /** At most this many entries (default {@link DEFAULT_PAGE_SIZE}, capped at {@link MAX_PAGE_SIZE}). */
  readonly limit?: number;
  /** Skip live-only entries. */
  readonly retainedOnly?: boolean;
}

/** One page of a session's log. */
export interface LogPage {
  /** Entries in seq order. */
  readonly entries: readonly LogEntry[];
  /** The session's last seq when the page was read (0 for an empty log). */
  readonly lastSeq: number;
}

/** Agent-defined session configuration (modes, models…), kept as JSON. */
export type SessionConfig = Readonly<Record<string, unknown>>;

/** A session's directory record. */
export interface SessionRecord extends HistorySession {
  /** Human-readable title, if any. */
  readonly title: string | null;
  /** Last change (append or update), ISO 8601. */
  readonly updatedAt: string;
  /** Agent-defined configuration, if any. */
  readonly config: SessionConfig | null;
  /** The session log's last seq (0 while empty). */
  readonly lastSeq: number;
}

/** Input of {@link SessionLog.createSession}. */
export interface NewSessionRecord {
  /** Session ID; generated (`sess_…`) when omitted. */
  readonly sessionId?: SessionId;
  /** Working directory. */
  readonly cwd: string;
  /** Creation time, ISO 8601; defaults to now. */
  readonly createdAt?: string;
  /** Title (default none). */
  readonly title?: string | null;
  /** Configuration (default none). */
  readonly config?: SessionConfig | null;
}

/** Changes applied by {@link SessionLog.updateSession}; absent fields are left as they are. */
export interface SessionPatch {
  readonly cwd?: string;
  readonly title?: string | null;
  readonly config?: SessionConfig | null;
}

/** Options of {@link SessionLog.listSessions}. */
export interface ListSessionRecordsOptions {
  /** Opaque cursor from a previous page. */
  readonly cursor?: string | null;
  /** Page size; capped. */
  readonly limit?: number;
}

/** One page of the session directory, in creation order. */
export interface SessionRecordPage {
  readonly sessions: readonly SessionRecord[];
  /** Cursor for the next page; null at the end. */
  readonly nextCursor: string | null;
}

/** Receives a subscription's entries. */
export interface LogListener {
  /** A batch of consecutive entries, in seq order. */
  entries(batch: readonly LogEntry[]): void;
  /** The subscription ended (session missing or deleted, store closed, storage failure). */
  error?(error: unknown): void;
}

/** A live subscription; `close()` is idempotent. */
export interface LogSubscription {
  close(): void;
}

/**
 * How far a session's streamed chunks may run ahead of its log: at most `entries` entries and
 * `bytes` bytes of update JSON handed to the session but not yet in the log.
 */
export interface WriteBehindLimits {
  readonly entries: number;
  readonly bytes: number;
}

/** Agent-side storage of sessions as append-only, sequenced logs. See the contract above. */
export interface SessionLog {
  /**
   * Suggests that agents write streamed chunks behind, within these limits, rather than wait for
   * each append (a log whose append is a round trip to a server). An agent's
   * `writeBehind` option (`Agent`) overrides it. Absent: every update waits for its append.
   */
  readonly writeBehind?: WriteBehindLimits;
  /** Records a new session; fails with `session_exists` if the ID is taken. */
  createSession(session: NewSessionRecord): Promise<SessionRecord>;
  /** The session's record, or undefined. */
  getSession(sessionId: SessionId): Promise<SessionRecord | undefined>;
  /** Sessions in creation order, one page at a time. */
  listSessions(options?: ListSessionRecordsOptions): Promise<SessionRecordPage>;
  /** Changes cwd, title or config; fails with `session_not_found`. */
  updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord>;
  /** Deletes the session and its log; false if it did not exist. */
  deleteSession(sessionId: SessionId): Promise<boolean>;
  /** Issues a message ID never issued or claimed before in the session. */
  nextMessageId(sessionId: SessionId): Promise<MessageId>;
  /** Whether the message was claimed in the session. */
  isClaimed(sessionId: SessionId, ref: MessageRef): Promise<boolean>;
  /** Appends entries as one atomic step; resolves with their sequence numbers. */
  append(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SeqRange>;
  /** Reads one page of the log. */
  read(sessionId: SessionId, options?: ReadLogOptions): Promise<LogPage>;
  /** Follows the log from `afterSeq` (backlog, then live). */
  subscribe(sessionId: SessionId, afterSeq: number, listener: LogListener): LogSubscription;
  /** Releases resources; later calls fail with `closed`; subscribers get an error. Idempotent. */
  close(): Promise<void>;
}
