import { HistoryStoreError, type SessionLog } from '@acp-kit/sdk';
import {
  historyValidation as check,
  type ListSessionRecordsOptions,
  type LogEntry,
  type LogListener,
  type LogPage,
  type LogSubscription,
  type MessageRef,
  type NewLogEntry,
  type NewSessionRecord,
  type ReadLogOptions,
  randomMessageId,
  type SeqRange,
  type SessionPatch,
  type SessionRecord,
  type SessionRecordPage,
  type WriteBehindLimits,
} from '@acp-kit/sdk/adapter';
import { type OpenedDatabase, openDatabase, type PostgresConnectionOptions } from './connection.js';
import { type Fence, LogAppender } from './log-appender.js';
import type { DatabaseConnectionStatus } from './writable-host.js';
import { LogDatabase, notFound } from './log-database.js';
import { NotificationFollower } from './notification-follower.js';
import { SessionDirectory } from './session-directory.js';

/** Options of {@link PostgresSessionLog.open}. */
export interface PostgresSessionLogOptions extends PostgresConnectionOptions {
  /** Message ID generator (default: random `msg_…` IDs); collisions with issued IDs are retried. */
  readonly generateMessageId?: () => string;
  /**
   * What the log suggests to agents writing to it ({@link SessionLog.writeBehind}): streamed
   * chunks may run this far ahead of the log, so an agent streaming a reply does not wait a round
   * trip per chunk (default {@link DEFAULT_WRITE_BEHIND}); `false` suggests nothing, and agents
   * then wait for every append.
   */
  readonly writeBehind?: WriteBehindLimits | false;
}

/**
 * The write-behind limits a {@link PostgresSessionLog} suggests by default: 512 entries or 1 MiB
 * of update JSON per session not yet in the log.
 */
export const DEFAULT_WRITE_BEHIND: WriteBehindLimits = Object.freeze({ entries: 512, bytes: 1024 * 1024 });

type SessionId = SessionRecord['sessionId'];
type MessageId = MessageRef['messageId'];
type Update = LogEntry['update'];

/** Refuses write-behind limits that are not two positive integers, with `invalid_argument` at their pointer. */
function checkWriteBehind(limits: WriteBehindLimits): void {
  for (const field of ['entries', 'bytes'] as const) {
    const value = (limits as Partial<WriteBehindLimits> | null)?.[field];
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw new HistoryStoreError(
        'invalid_argument',
        `/writeBehind/${field}: expected a positive integer, got ${String(value)}`,
        { pointer: `/writeBehind/${field}` },
      );
    }
  }
}

/**
 * A {@link SessionLog} in PostgreSQL, shared by every agent process (replica) that opens the same
 * database and schema. It is made of three parts, one file each:
 *
 * - the {@link SessionDirectory}: session records, issued and claimed message IDs;
 * - the {@link LogAppender}: one order across replicas, each append one transaction and one round
 *   trip, appends made meanwhile written together;
 * - the {@link NotificationFollower}: live delivery across replicas through `LISTEN`/`NOTIFY`,
 *   gaps read back, so no follower skips or repeats an entry.
 *
 * Open it with {@link PostgresSessionLog.open}; problems with the database surface there as a
 * {@link HistoryStoreError} naming it (password removed).
 */
export class PostgresSessionLog implements SessionLog {
  readonly #db: LogDatabase;
  readonly #pool: OpenedDatabase['pool'];
  readonly #directory: SessionDirectory;
  readonly #appender: LogAppender;
  readonly #follower: NotificationFollower;
  /** Suggested to agents: streamed chunks may run this far ahead of the log (see {@link SessionLog.writeBehind}). */
  readonly writeBehind: WriteBehindLimits | undefined;

  private constructor(
    db: OpenedDatabase,
    generate: () => string,
    writeBehind: WriteBehindLimits | undefined,
  ) {
    this.#db = new LogDatabase(db, randomMessageId().slice(4));
    this.#pool = db.pool;
    this.writeBehind = writeBehind;
    this.#follower = new NotificationFollower(this.#db, (id, options) => this.read(id, options));
    this.#directory = new SessionDirectory(this.#db, this.#follower, generate);
    this.#appender = new LogAppender(this.#db, this.#follower);
  }

  /** Connects to the database at `connectionString` (a `postgres://` URL) and migrates its schema. */
  static async open(
    connectionString: string,
    options: PostgresSessionLogOptions = {},
  ): Promise<PostgresSessionLog> {
    const writeBehind =
      options.writeBehind === false ? undefined : (options.writeBehind ?? DEFAULT_WRITE_BEHIND);
    if (writeBehind !== undefined) checkWriteBehind(writeBehind);
    const db = await openDatabase(connectionString, options);
    return new PostgresSessionLog(db, options.generateMessageId ?? randomMessageId, writeBehind);
  }

  /** The PostgreSQL schema holding the tables. */
  get schema(): string {
    return this.#db.schema;
  }

  /** The database, as error messages name it (no password). */
  get location(): string {
    return this.#db.location;
  }

  createSession(session: NewSessionRecord): Promise<SessionRecord> {
    return this.#directory.createSession(session);
  }

  getSession(sessionId: SessionId): Promise<SessionRecord | undefined> {
    return this.#directory.getSession(sessionId);
  }

  listSessions(options: ListSessionRecordsOptions = {}): Promise<SessionRecordPage> {
    return this.#directory.listSessions(options);
  }

  updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord> {
    return this.#directory.updateSession(sessionId, patch);
  }

  deleteSession(sessionId: SessionId): Promise<boolean> {
    return this.#directory.deleteSession(sessionId);
  }

  nextMessageId(sessionId: SessionId): Promise<MessageId> {
    return this.#directory.nextMessageId(sessionId);
  }

  isClaimed(sessionId: SessionId, ref: MessageRef): Promise<boolean> {
    return this.#directory.isClaimed(sessionId, ref);
  }

  append(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    return this.#appender.append(sessionId, entries, undefined);
  }

  /**
   * `append`, fenced by the session's lease: succeeds only while `lease` (from
   * {@link PostgresSessionLeases}) is held at its epoch and not lapsed, and fails with `locked`
   * otherwise — so a replica that lost a session (paused past its lease, then taken over) cannot
   * write into a turn that is no longer its own. A takeover waits for a fenced append in flight.
   */
  appendAsOwner(sessionId: SessionId, entries: readonly NewLogEntry[], lease: Fence): Promise<SeqRange> {
    return this.#appender.append(sessionId, entries, { owner: lease.owner, epoch: lease.epoch });
  }

  /**
   * The session's last `state_update` (running, idle, requires_action), or undefined when it has
   * none; a new owner reads it to tell an interrupted turn from a finished one.
   */
  async lastState(sessionId: SessionId): Promise<LogEntry | undefined> {
    this.#db.checkOpen();
    check.checkId(sessionId, '/sessionId');
    const { rows } = await this.#db.query<{
      ordinal: string;
      seq: string | null;
      retain: boolean;
      body: string;
    }>(
      'read',
      `SELECT s.ordinal, e.seq, e.retain, e.body
       FROM ${this.#db.s}.log_sessions s
       LEFT JOIN LATERAL (
         SELECT seq, retain, body FROM ${this.#db.s}.log_entries
         WHERE session = s.ordinal AND (body::json ->> 'sessionUpdate') = 'state_update'
         ORDER BY seq DESC LIMIT 1
       ) e ON true
       WHERE s.session_id = $1`,
      [sessionId],
    );
    if (rows[0] === undefined) throw notFound(sessionId);
    const row = rows[0];
    return row.seq === null
      ? undefined
      : { seq: Number(row.seq), retain: row.retain, update: JSON.parse(row.body) as Update };
  }

  async read(sessionId: SessionId, options: ReadLogOptions = {}): Promise<LogPage> {
    this.#db.checkOpen();
    check.checkId(sessionId, '/sessionId');
    const after = check.afterSeq(options.afterSeq);
    const limit = check.pageLimit(options.limit);
    // One statement: the session's last seq and the page come from one snapshot.
    const { rows } = await this.#db.query<{
      last_seq: string;
      seq: string | null;
      retain: boolean;
      body: string;
    }>(
      'read',
      `SELECT s.last_seq, e.seq, e.retain, e.body
       FROM ${this.#db.s}.log_sessions s
       LEFT JOIN LATERAL (
         SELECT seq, retain, body FROM ${this.#db.s}.log_entries
         WHERE session = s.ordinal AND seq > $2 AND (NOT $4 OR retain)
         ORDER BY seq LIMIT $3
       ) e ON true
       WHERE s.session_id = $1`,
      [sessionId, after, limit, options.retainedOnly === true],
    );
    if (rows[0] === undefined) throw notFound(sessionId);
    const entries: LogEntry[] = [];
    for (const row of rows) {
      if (row.seq === null) continue;
      entries.push({ seq: Number(row.seq), retain: row.retain, update: JSON.parse(row.body) as Update });
    }
    return { entries, lastSeq: Number(rows[0].last_seq) };
  }

  subscribe(sessionId: SessionId, afterSeq: number, listener: LogListener): LogSubscription {
    return this.#follower.subscribe(sessionId, afterSeq, listener);
  }

  /**
   * Which database this log's connections go to and whether it can write there: for a
   * multi-host connection string, the host picked (the writable one on the highest WAL timeline),
   * its timeline and how often connections moved to another host; see {@link DatabaseConnectionStatus}.
   */
  connectionStatus(): DatabaseConnectionStatus & { readonly listenReconnects: number } {
    return { ...this.#db.connectionStatus(), listenReconnects: this.#follower.listenReconnects };
  }

  async close(): Promise<void> {
    if (this.#db.closed) return;
    this.#db.markClosed();
    await this.#follower.close();
    await this.#pool.end();
  }
}
