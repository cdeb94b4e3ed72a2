import { HistoryStoreError, type SessionLog } from '@acp-kit/sdk';
import {
  decodeListCursor,
  encodeListCursor,
  historyValidation as check,
  issueMessageId,
  type ListSessionRecordsOptions,
  type LogEntry,
  LogFollowers,
  type LogListener,
  type LogPage,
  type LogSubscription,
  type MessageRef,
  type NewLogEntry,
  type NewSessionRecord,
  randomMessageId,
  type ReadLogOptions,
  type SeqRange,
  type SessionConfig,
  type SessionPatch,
  type SessionRecord,
  type SessionRecordPage,
} from '@acp-kit/sdk/adapter';
import Database from 'better-sqlite3';
import { createOwnerOnly } from './private-file.js';
import { inspect, migrate } from './schema.js';
import { translateSqliteError } from './sqlite-errors.js';

/** Options of {@link SqliteSessionLog.open}. */
export interface SqliteSessionLogOptions {
  /** How long to wait for another connection's lock before failing with `locked` (default 5000 ms). */
  readonly busyTimeoutMs?: number;
  /**
   * `normal` (default): in WAL mode a commit survives a process crash; a power loss may drop the
   * last commits but never corrupts the file. `full`: every commit is synced to disk.
   */
  readonly synchronous?: 'normal' | 'full';
  /** Run `PRAGMA quick_check` at open and fail with `corrupt` if it finds damage (costs a full read). */
  readonly verify?: boolean;
  /** Message ID generator (default: random `msg_…` IDs); collisions with issued IDs are retried. */
  readonly generateMessageId?: () => string;
}

type SessionId = SessionRecord['sessionId'];
type MessageId = MessageRef['messageId'];

/** A `sessions` row. */
interface SessionRow {
  ordinal: number;
  session_id: string;
  cwd: string;
  created_at: string;
  title: string | null;
  updated_at: string;
  config: string | null;
  /** Last `seq` of the session log. */
  log_seq: number;
}

function prepareAll(db: Database.Database) {
  return {
    insertSession: db.prepare(
      'INSERT INTO sessions (session_id, cwd, created_at, updated_at, title, config) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    session: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_id = ?'),
    listSessions: db.prepare<[number, number], SessionRow>(
      'SELECT * FROM sessions WHERE ordinal > ? ORDER BY ordinal LIMIT ?',
    ),
    updateSession: db.prepare(
      'UPDATE sessions SET cwd = ?, title = ?, config = ?, updated_at = ? WHERE ordinal = ?',
    ),
    deleteSession: db.prepare('DELETE FROM sessions WHERE ordinal = ?'),
    issueId: db.prepare('INSERT OR IGNORE INTO issued_ids (session, message_id) VALUES (?, ?)'),
    claimed: db
      .prepare<[number, string, string], number>(
        'SELECT 1 FROM claims WHERE session = ? AND kind = ? AND message_id = ?',
      )
      .pluck(),
    claim: db.prepare('INSERT INTO claims (session, kind, message_id) VALUES (?, ?, ?)'),
    insertEntry: db.prepare('INSERT INTO entries (session, seq, retain, body) VALUES (?, ?, ?, ?)'),
    setLogSeq: db.prepare('UPDATE sessions SET log_seq = ?, updated_at = ? WHERE ordinal = ?'),
    // Raw rows and all(): the replay hot path.
    readEntries: db
      .prepare<[number, number, number], [number, number, string]>(
        'SELECT seq, retain, body FROM entries WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?',
      )
      .raw(true),
    readRetained: db
      .prepare<[number, number, number], [number, number, string]>(
        'SELECT seq, retain, body FROM entries WHERE session = ? AND seq > ? AND retain = 1 ORDER BY seq LIMIT ?',
      )
      .raw(true),
  };
}

/**
 * Opens and migrates the database file. A new file
 * (and so its WAL/SHM companions) is created readable by its owner only: conversations are private.
 */
function openDatabase(path: string, options: SqliteSessionLogOptions): Database.Database {
  let db: Database.Database | undefined;
  try {
    createOwnerOnly(path);
    db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
    inspect(db, path);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    if (options.verify) {
      const result = db.pragma('quick_check', { simple: true });
      if (result !== 'ok') {
        throw new HistoryStoreError('corrupt', `${path} failed its integrity check: ${String(result)}`, {
          path,
        });
      }
    }
    // An IMMEDIATE transaction takes the write lock now, so a locked or read-only file fails here,
    // at open, rather than on the first append.
    const opened = db;
    opened.transaction(() => migrate(opened, path)).immediate();
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // The open error is the one worth reporting.
    }
    throw translateSqliteError(error, path, 'cannot open history database');
  }
}

/**
 * A {@link SessionLog} in one SQLite file (better-sqlite3, WAL mode): sessions, their numbered
 * logs, claimed and issued message IDs survive restarts. Each `append` is one IMMEDIATE
 * transaction that checks the claims and writes the entries, so either all of it is stored or
 * nothing. Subscriptions follow appends made through this object.
 *
 * Open it with {@link SqliteSessionLog.open}; problems with the file surface there as a
 * `HistoryStoreError` naming the path, and the file is never rewritten to make it fit.
 */
export class SqliteSessionLog implements SessionLog {
  readonly #db: Database.Database;
  readonly #sql: ReturnType<typeof prepareAll>;
  readonly #followers = new LogFollowers();
  readonly #generate: () => string;
  #closed = false;

  private constructor(
    db: Database.Database,
    /** The database file. */
    readonly path: string,
    generate: () => string,
  ) {
    this.#db = db;
    this.#generate = generate;
    this.#sql = prepareAll(db);
  }

  /** Opens (creating if needed) the database at `path`, migrating older files. */
  static open(path: string, options: SqliteSessionLogOptions = {}): SqliteSessionLog {
    const db = openDatabase(path, options);
    return new SqliteSessionLog(db, path, options.generateMessageId ?? randomMessageId);
  }

  async createSession(session: NewSessionRecord): Promise<SessionRecord> {
    return this.#write('create a session in', () => {
      const input = check.checkNewSessionRecord(session);
      if (this.#sql.session.get(input.sessionId) !== undefined) {
        throw new HistoryStoreError('session_exists', `session "${input.sessionId}" already exists`, {
          sessionId: input.sessionId,
        });
      }
      this.#sql.insertSession.run(
        input.sessionId,
        input.cwd,
        input.createdAt,
        input.createdAt,
        input.title,
        input.config === null ? null : JSON.stringify(input.config),
      );
      return toRecord(this.#sql.session.get(input.sessionId)!);
    });
  }

  async getSession(sessionId: SessionId): Promise<SessionRecord | undefined> {
    return this.#run('read', () => {
      const row = this.#sql.session.get(sessionId);
      return row === undefined ? undefined : toRecord(row);
    });
  }

  async listSessions(options: ListSessionRecordsOptions = {}): Promise<SessionRecordPage> {
    return this.#run('read', () => {
      const page = this.#listRows(options);
      return { sessions: page.rows.map(toRecord), nextCursor: page.nextCursor };
    });
  }

  async updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord> {
    return this.#write('update a session in', () => {
      const row = this.#sessionRow(sessionId);
      check.checkPatch(patch);
      const config =
        patch.config === undefined ? row.config : patch.config === null ? null : JSON.stringify(patch.config);
      this.#sql.updateSession.run(
        patch.cwd ?? row.cwd,
        patch.title === undefined ? row.title : patch.title,
        config,
        check.monotonicNow(row.updated_at),
        row.ordinal,
      );
      return toRecord(this.#sql.session.get(sessionId)!);
    });
  }

  async deleteSession(sessionId: SessionId): Promise<boolean> {
    const deleted = this.#write('delete a session in', () => {
      const row = this.#sql.session.get(sessionId);
      if (row === undefined) return false;
      this.#sql.deleteSession.run(row.ordinal);
      return true;
    });
    if (deleted) {
      this.#followers.fail(
        new HistoryStoreError('session_not_found', `session "${sessionId}" was deleted`, { sessionId }),
        sessionId,
      );
    }
    return deleted;
  }

  async nextMessageId(sessionId: SessionId): Promise<MessageId> {
    return this.#write('issue a message ID in', () => {
      const { ordinal } = this.#sessionRow(sessionId);
      // Claims are recorded as issued too, so a claimed ID is never handed out.
      return issueMessageId(
        sessionId,
        this.#generate,
        (id) => this.#sql.issueId.run(ordinal, id).changes === 1,
      );
    });
  }

  async isClaimed(sessionId: SessionId, ref: MessageRef): Promise<boolean> {
    return this.#run('read', () => {
      const { ordinal } = this.#sessionRow(sessionId);
      check.checkRef(ref);
      return this.#sql.claimed.get(ordinal, ref.kind, ref.messageId) !== undefined;
    });
  }

  async append(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    let stored: LogEntry[] = [];
    const range = this.#write('append to', () => {
      const row = this.#sessionRow(sessionId);
      check.checkEntries(entries);
      stored = this.#appendRows(row, entries);
      return { first: stored[0]!.seq, last: stored.at(-1)!.seq };
    });
    this.#followers.published(sessionId, stored);
    return range;
  }

  async read(sessionId: SessionId, options: ReadLogOptions = {}): Promise<LogPage> {
    return this.#write(
      'read',
      () => {
        const row = this.#sessionRow(sessionId);
        const after = check.afterSeq(options.afterSeq);
        const limit = check.pageLimit(options.limit);
        const rows = (options.retainedOnly ? this.#sql.readRetained : this.#sql.readEntries).all(
          row.ordinal,
          after,
          limit,
        );
        // The stored text goes along: a replay sends it instead of serializing the update again.
        const entries: LogEntry[] = rows.map(([seq, retain, body]) =>
          body.includes('\n') || body.includes('\r')
            ? { seq, retain: retain === 1, update: JSON.parse(body) }
            : { seq, retain: retain === 1, update: JSON.parse(body), json: body },
        );
        return { entries, lastSeq: row.log_seq };
      },
      'deferred',
    );
  }

  subscribe(sessionId: SessionId, afterSeq: number, listener: LogListener): LogSubscription {
    this.#open();
    check.checkId(sessionId, '/sessionId');
    const from = check.afterSeq(afterSeq);
    return this.#followers.subscribe(sessionId, from, listener, (id, options) => this.read(id, options));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
    this.#followers.fail(new HistoryStoreError('closed', `the history store at ${this.path} is closed`));
  }

  /**
   * Inside a write transaction: checks claims and writes `entries` after the session's last seq.
   */
  #appendRows(row: SessionRow, entries: readonly NewLogEntry[]): LogEntry[] {
    const fresh = new Set<string>();
    for (const entry of entries) {
      if (entry.claim === undefined) continue;
      const key = `${entry.claim.kind}\u0000${entry.claim.messageId}`;
      if (fresh.has(key) || this.#sql.claimed.get(row.ordinal, entry.claim.kind, entry.claim.messageId)) {
        check.duplicateClaim(row.session_id, entry.claim);
      }
      fresh.add(key);
    }
    const stored: LogEntry[] = [];
    let seq = row.log_seq;
    for (const entry of entries) {
      const retain = entry.retain ?? true;
      if (entry.claim !== undefined) {
        this.#sql.claim.run(row.ordinal, entry.claim.kind, entry.claim.messageId);
        this.#sql.issueId.run(row.ordinal, entry.claim.messageId);
      }
      this.#sql.insertEntry.run(row.ordinal, ++seq, retain ? 1 : 0, JSON.stringify(entry.update));
      stored.push({ seq, retain, update: entry.update });
    }
    this.#sql.setLogSeq.run(seq, check.monotonicNow(row.updated_at), row.ordinal);
    return stored;
  }

  /** Sessions page (rows). */
  #listRows(options: ListSessionRecordsOptions): { rows: SessionRow[]; nextCursor: string | null } {
    const limit = check.pageLimit(options.limit);
    const after = decodeListCursor(options.cursor);
    const rows = this.#sql.listSessions.all(after, limit + 1);
    const page = rows.slice(0, limit);
    return { rows: page, nextCursor: rows.length > limit ? encodeListCursor(page.at(-1)!.ordinal) : null };
  }

  /** The session's row; `session_not_found` when missing. */
  #sessionRow(sessionId: SessionId): SessionRow {
    check.checkId(sessionId, '/sessionId');
    const row = this.#sql.session.get(sessionId);
    if (row === undefined)
      throw new HistoryStoreError('session_not_found', `no session "${sessionId}"`, { sessionId });
    return row;
  }

  /** Throws `closed` once closed. */
  #open(): void {
    if (this.#closed)
      throw new HistoryStoreError('closed', `the history store at ${this.path} is closed`, {
        path: this.path,
      });
  }

  /** Runs `work` outside a transaction, translating SQLite errors. */
  #run<T>(doing: string, work: () => T): T {
    this.#open();
    try {
      return work();
    } catch (error) {
      throw translateSqliteError(error, this.path, `cannot ${doing}`);
    }
  }

  /** Runs `work` in one transaction (IMMEDIATE for writes), translating SQLite errors. */
  #write<T>(doing: string, work: () => T, mode: 'immediate' | 'deferred' = 'immediate'): T {
    return this.#run(doing, () => this.#db.transaction(work)[mode]());
  }
}

function toRecord(row: SessionRow): SessionRecord {
  return Object.freeze({
    sessionId: row.session_id,
    cwd: row.cwd,
    createdAt: row.created_at,
    title: row.title,
    updatedAt: row.updated_at ?? row.created_at,
    config: row.config === null ? null : (JSON.parse(row.config) as SessionConfig),
    lastSeq: row.log_seq,
  });
}
