import {
  type HistorySession,
  type HistoryStore,
  HistoryStoreError,
  historyValidation as check,
  type ListSessionsOptions,
  type MessagePage,
  type MessageRef,
  type MessageTarget,
  type NewHistorySession,
  type NewRetainedMessage,
  type ReadMessagesOptions,
  type ReplayVia,
  type RetainedMessage,
  issueMessageId,
  randomMessageId,
  retainedMessages,
  type SessionPage,
  type StreamMessagesOptions,
} from '@acp-kit/sdk';
import Database from 'better-sqlite3';
import { inspect, migrate } from './schema.js';
import { translateSqliteError } from './sqlite-errors.js';

/** Options of {@link SqliteHistoryStore.open}. */
export interface SqliteHistoryStoreOptions {
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

// Protocol types through the SDK's history API, so this package depends on @acp-kit/sdk alone.
type ContentBlock = RetainedMessage['content'][number];
type MessageId = MessageRef['messageId'];
type SessionId = HistorySession['sessionId'];

interface SessionRow {
  ordinal: number;
  session_id: string;
  cwd: string;
  created_at: string;
  last_seq: number;
}
interface MessageRow {
  seq: number;
  kind: RetainedMessage['kind'];
  message_id: string;
  via: ReplayVia;
  meta: string | null;
}
interface LocatedRow {
  seq: number;
  block_count: number;
}

function prepareAll(db: Database.Database) {
  return {
    insertSession: db.prepare('INSERT INTO sessions (session_id, cwd, created_at) VALUES (?, ?, ?)'),
    session: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_id = ?'),
    listSessions: db.prepare<[number, number], SessionRow>(
      'SELECT * FROM sessions WHERE ordinal > ? ORDER BY ordinal LIMIT ?',
    ),
    deleteSession: db.prepare('DELETE FROM sessions WHERE ordinal = ?'),
    issueId: db.prepare('INSERT OR IGNORE INTO issued_ids (session, message_id) VALUES (?, ?)'),
    insertMessage: db.prepare(
      'INSERT INTO messages (session, seq, kind, message_id, via, meta, block_count) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    setLastSeq: db.prepare('UPDATE sessions SET last_seq = ? WHERE ordinal = ?'),
    insertBlock: db.prepare('INSERT INTO blocks (session, seq, idx, block) VALUES (?, ?, ?, ?)'),
    deleteBlocks: db.prepare('DELETE FROM blocks WHERE session = ? AND seq = ?'),
    setBlockCount: db.prepare('UPDATE messages SET block_count = ? WHERE session = ? AND seq = ?'),
    setVia: db.prepare('UPDATE messages SET via = ? WHERE session = ? AND seq = ?'),
    byRef: db.prepare<[number, string, string], LocatedRow>(
      'SELECT seq, block_count FROM messages WHERE session = ? AND kind = ? AND message_id = ?',
    ),
    byId: db.prepare<[number, string], LocatedRow>(
      'SELECT seq, block_count FROM messages WHERE session = ? AND message_id = ? LIMIT 2',
    ),
    pageMessages: db.prepare<[number, number, number], MessageRow>(
      'SELECT seq, kind, message_id, via, meta FROM messages WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    // Raw rows ([seq, block]) and all() rather than objects and iterate(): this is the replay hot path.
    pageBlocks: db
      .prepare<[number, number, number], [number, string]>(
        'SELECT seq, block FROM blocks WHERE session = ? AND seq > ? AND seq <= ? ORDER BY seq, idx',
      )
      .raw(true),
  };
}

/**
 * A {@link HistoryStore} in one SQLite file (better-sqlite3, WAL mode), for agents whose retained
 * history and issued message IDs must survive restarts.
 *
 * Open it with {@link SqliteHistoryStore.open}; problems with the file (locked, read-only, corrupt,
 * from a newer version, someone else's database) surface there as a {@link HistoryStoreError} naming
 * the path — the file is never rewritten to make it fit. Methods are async to honour the interface
 * but run synchronously on the calling thread; each write is one transaction.
 */
export class SqliteHistoryStore implements HistoryStore {
  private readonly sql: ReturnType<typeof prepareAll>;
  private closed = false;

  private constructor(
    private readonly db: Database.Database,
    /** The database file. */
    readonly path: string,
    private readonly generate: () => string,
  ) {
    this.sql = prepareAll(db);
  }

  /** Opens (creating if needed) the history database at `path`, migrating its schema. */
  static open(path: string, options: SqliteHistoryStoreOptions = {}): SqliteHistoryStore {
    let db: Database.Database | undefined;
    try {
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
      return new SqliteHistoryStore(db, path, options.generateMessageId ?? randomMessageId);
    } catch (error) {
      try {
        db?.close();
      } catch {
        // The open error is the one worth reporting.
      }
      throw translateSqliteError(error, path, 'cannot open history database');
    }
  }

  async createSession(session: NewHistorySession): Promise<HistorySession> {
    return this.write('create a session in', () => {
      const input = check.checkNewSession(session);
      if (this.sql.session.get(input.sessionId) !== undefined) {
        throw new HistoryStoreError('session_exists', `session "${input.sessionId}" already exists`, {
          sessionId: input.sessionId,
        });
      }
      this.sql.insertSession.run(input.sessionId, input.cwd, input.createdAt);
      return Object.freeze({ ...input });
    });
  }

  async getSession(sessionId: SessionId): Promise<HistorySession | undefined> {
    return this.run('read', () => {
      const row = this.sql.session.get(sessionId);
      return row === undefined ? undefined : toSession(row);
    });
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    return this.run('read', () => {
      const limit = check.pageLimit(options.limit);
      const after = options.cursor ? Number(options.cursor) : 0;
      if (!Number.isInteger(after) || after < 0) {
        throw new HistoryStoreError('invalid_argument', '/cursor: expected a cursor from a previous page', {
          pointer: '/cursor',
        });
      }
      const rows = this.sql.listSessions.all(after, limit + 1);
      const page = rows.slice(0, limit);
      return {
        sessions: page.map(toSession),
        nextCursor: rows.length > limit ? String(page.at(-1)!.ordinal) : null,
      };
    });
  }

  async deleteSession(sessionId: SessionId): Promise<boolean> {
    return this.write('delete a session in', () => {
      const row = this.sql.session.get(sessionId);
      if (row === undefined) return false;
      this.sql.deleteSession.run(row.ordinal);
      return true;
    });
  }

  async nextMessageId(sessionId: SessionId): Promise<MessageId> {
    return this.write('issue a message ID in', () => {
      const { ordinal } = this.session(sessionId);
      return issueMessageId(
        sessionId,
        this.generate,
        (id) => this.sql.issueId.run(ordinal, id).changes === 1,
      );
    });
  }

  async appendMessage(sessionId: SessionId, message: NewRetainedMessage): Promise<RetainedMessage> {
    return this.write('append to', () => this.insert(this.session(sessionId), message));
  }

  /**
   * Appends many messages to one session in a single transaction (an import, a migration): all of
   * them or none. Returns how many were appended.
   */
  async appendMessages(sessionId: SessionId, messages: Iterable<NewRetainedMessage>): Promise<number> {
    return this.write('append to', () => {
      const session = this.session(sessionId);
      let count = 0;
      for (const message of messages) {
        this.insert(session, message);
        count++;
      }
      return count;
    });
  }

  async appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void> {
    this.write('append to', () => {
      check.checkTarget(target);
      check.checkBlock(block, '/block');
      const { ordinal } = this.session(sessionId);
      const located = this.locate(ordinal, sessionId, target);
      this.sql.insertBlock.run(ordinal, located.seq, located.block_count, JSON.stringify(block));
      this.sql.setBlockCount.run(located.block_count + 1, ordinal, located.seq);
    });
  }

  async replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options: { readonly via?: ReplayVia } = {},
  ): Promise<void> {
    this.write('write to', () => {
      check.checkTarget(target);
      if (content !== null) check.checkContent(content, '/content');
      if (options.via !== undefined) check.checkVia(options.via, '/via');
      const { ordinal } = this.session(sessionId);
      const { seq } = this.locate(ordinal, sessionId, target);
      this.sql.deleteBlocks.run(ordinal, seq);
      const blocks = content ?? [];
      for (const [idx, block] of blocks.entries())
        this.sql.insertBlock.run(ordinal, seq, idx, JSON.stringify(block));
      this.sql.setBlockCount.run(blocks.length, ordinal, seq);
      if (options.via !== undefined) this.sql.setVia.run(options.via, ordinal, seq);
    });
  }

  async isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean> {
    return this.run('read', () => {
      check.checkTarget(target);
      const { ordinal } = this.session(sessionId);
      const row =
        typeof target === 'string'
          ? this.sql.byId.get(ordinal, target)
          : this.sql.byRef.get(ordinal, target.kind, target.messageId);
      return row !== undefined;
    });
  }

  async readMessages(sessionId: SessionId, options: ReadMessagesOptions = {}): Promise<MessagePage> {
    // A read transaction: the message page and its blocks come from one consistent snapshot.
    return this.write(
      'read',
      () => {
        const after = check.afterSeq(options.afterSeq);
        const limit = check.pageLimit(options.limit);
        const { ordinal } = this.session(sessionId);
        const rows = this.sql.pageMessages.all(ordinal, after, limit + 1);
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        const content = new Map<number, ContentBlock[]>();
        if (last !== undefined) {
          for (const [seq, block] of this.sql.pageBlocks.all(ordinal, after, last.seq)) {
            const blocks = content.get(seq);
            if (blocks === undefined) content.set(seq, [JSON.parse(block) as ContentBlock]);
            else blocks.push(JSON.parse(block) as ContentBlock);
          }
        }
        return {
          messages: page.map((row) => ({
            seq: row.seq,
            kind: row.kind,
            messageId: row.message_id,
            via: row.via,
            content: content.get(row.seq) ?? [],
            meta: row.meta === null ? null : (JSON.parse(row.meta) as Record<string, unknown>),
          })),
          nextAfterSeq: rows.length > limit && last !== undefined ? last.seq : null,
        };
      },
      'deferred',
    );
  }

  messages(sessionId: SessionId, options: StreamMessagesOptions = {}): AsyncIterable<RetainedMessage> {
    return retainedMessages(this, sessionId, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private insert(session: SessionRow, message: NewRetainedMessage): RetainedMessage {
    check.checkNewMessage(message);
    if (this.sql.byRef.get(session.ordinal, message.kind, message.messageId) !== undefined) {
      throw new HistoryStoreError(
        'duplicate_message',
        `${message.kind} "${message.messageId}" is already retained`,
        {
          sessionId: session.session_id,
          messageId: message.messageId,
        },
      );
    }
    const seq = ++session.last_seq;
    const via = check.defaultVia(message);
    const meta = message.meta ? JSON.stringify(message.meta) : null;
    const blocks = message.content;
    this.sql.insertMessage.run(
      session.ordinal,
      seq,
      message.kind,
      message.messageId,
      via,
      meta,
      blocks.length,
    );
    for (const [idx, block] of blocks.entries())
      this.sql.insertBlock.run(session.ordinal, seq, idx, JSON.stringify(block));
    this.sql.setLastSeq.run(seq, session.ordinal);
    this.sql.issueId.run(session.ordinal, message.messageId);
    return {
      seq,
      kind: message.kind,
      messageId: message.messageId,
      via,
      content: [...blocks],
      meta: meta === null ? null : (JSON.parse(meta) as Record<string, unknown>),
    };
  }

  private session(sessionId: SessionId): SessionRow {
    check.checkId(sessionId, '/sessionId');
    const row = this.sql.session.get(sessionId);
    if (row === undefined)
      throw new HistoryStoreError('session_not_found', `no session "${sessionId}"`, { sessionId });
    return row;
  }

  private locate(ordinal: number, sessionId: SessionId, target: MessageTarget): LocatedRow {
    let row: LocatedRow | undefined;
    if (typeof target === 'string') {
      const rows = this.sql.byId.all(ordinal, target);
      if (rows.length > 1) check.ambiguousTarget(target, sessionId);
      row = rows[0];
    } else {
      row = this.sql.byRef.get(ordinal, target.kind, target.messageId);
    }
    if (row === undefined) {
      const messageId = typeof target === 'string' ? target : target.messageId;
      throw new HistoryStoreError('message_not_found', `message "${messageId}" is not retained`, {
        sessionId,
        messageId,
      });
    }
    return row;
  }

  /** Runs `work` outside a transaction, translating SQLite errors. */
  private run<T>(doing: string, work: () => T): T {
    if (this.closed)
      throw new HistoryStoreError('closed', `the history store at ${this.path} is closed`, {
        path: this.path,
      });
    try {
      return work();
    } catch (error) {
      throw translateSqliteError(error, this.path, `cannot ${doing}`);
    }
  }

  /** Runs `work` in one transaction (IMMEDIATE for writes), translating SQLite errors. */
  private write<T>(doing: string, work: () => T, mode: 'immediate' | 'deferred' = 'immediate'): T {
    return this.run(doing, () => this.db.transaction(work)[mode]());
  }
}

function toSession(row: SessionRow): HistorySession {
  return Object.freeze({ sessionId: row.session_id, cwd: row.cwd, createdAt: row.created_at });
}
