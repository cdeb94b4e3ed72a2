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
  randomMessageId,
  retainedMessages,
  type SessionPage,
  type StreamMessagesOptions,
} from '@acp-kit/sdk';
import type pg from 'pg';
import { openDatabase, type PostgresConnectionOptions } from './connection.js';
import { translatePgError } from './pg-errors.js';
import { quoteSchema, RAISED } from './schema.js';

/** Options of {@link PostgresHistoryStore.open}. */
export interface PostgresHistoryStoreOptions extends PostgresConnectionOptions {
  /** Message ID generator (default: random `msg_…` IDs); collisions with issued IDs are retried. */
  readonly generateMessageId?: () => string;
}

// Protocol types through the SDK's history API, so this package depends on @acp-kit/sdk alone.
type ContentBlock = RetainedMessage['content'][number];
type MessageId = MessageRef['messageId'];
type SessionId = HistorySession['sessionId'];

interface SessionRow {
  ordinal: string;
  session_id: string;
  cwd: string;
  created_at: string;
}
interface MessageRow {
  seq: string;
  kind: RetainedMessage['kind'];
  message_id: string;
  via: ReplayVia;
  meta: string | null;
  content: string;
}

/** How many fresh IDs `nextMessageId` tries before giving up (only a broken generator gets there). */
const MAX_ID_ATTEMPTS = 64;

/**
 * A {@link HistoryStore} in PostgreSQL (the `pg` driver), for agents whose retained history must
 * outlive one process and be shared by several agent replicas.
 *
 * Open it with {@link PostgresHistoryStore.open}, which connects, checks the schema and runs pending
 * migrations (once, under an advisory lock, when replicas start together); problems surface there
 * as a {@link HistoryStoreError} naming the database (password removed). Every write is one
 * statement — a server-side function — so it is atomic and costs one round trip; appends to a
 * session are ordered by a row lock on the session, so `seq` stays gap-free and strictly
 * increasing across processes, and `(kind, messageId)` uniqueness and the record of issued IDs are
 * enforced by the database, not by any one process.
 */
export class PostgresHistoryStore implements HistoryStore {
  readonly #pool: pg.Pool;
  readonly #s: string;
  readonly #generate: () => string;
  #closed = false;

  private constructor(
    pool: pg.Pool,
    /** The PostgreSQL schema holding the tables. */
    readonly schema: string,
    /** The database, as named in error messages (no password). */
    readonly location: string,
    generate: () => string,
  ) {
    this.#pool = pool;
    this.#s = quoteSchema(schema);
    this.#generate = generate;
  }

  /** Connects to the database at `connectionString` (a `postgres://` URL) and migrates its schema. */
  static async open(
    connectionString: string,
    options: PostgresHistoryStoreOptions = {},
  ): Promise<PostgresHistoryStore> {
    const db = await openDatabase(connectionString, options);
    return new PostgresHistoryStore(
      db.pool,
      db.schema,
      db.location,
      options.generateMessageId ?? randomMessageId,
    );
  }

  async createSession(session: NewHistorySession): Promise<HistorySession> {
    const input = check.checkNewSession(session);
    const result = await this.#query(
      'create a session in',
      `INSERT INTO ${this.#s}.sessions (session_id, cwd, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (session_id) DO NOTHING`,
      [input.sessionId, input.cwd, input.createdAt],
    );
    if (result.rowCount === 0) {
      throw new HistoryStoreError('session_exists', `session "${input.sessionId}" already exists`, {
        sessionId: input.sessionId,
      });
    }
    return Object.freeze({ ...input });
  }

  async getSession(sessionId: SessionId): Promise<HistorySession | undefined> {
    const result = await this.#query<SessionRow>(
      'read',
      `SELECT * FROM ${this.#s}.sessions WHERE session_id = $1`,
      [sessionId],
    );
    const row = result.rows[0];
    return row === undefined ? undefined : toSession(row);
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    this.#checkOpen();
    const limit = check.pageLimit(options.limit);
    const after = options.cursor ? Number(options.cursor) : 0;
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new HistoryStoreError('invalid_argument', '/cursor: expected a cursor from a previous page', {
        pointer: '/cursor',
      });
    }
    const { rows } = await this.#query<SessionRow>(
      'read',
      `SELECT * FROM ${this.#s}.sessions WHERE ordinal > $1 ORDER BY ordinal LIMIT $2`,
      [after, limit + 1],
    );
    const page = rows.slice(0, limit);
    return {
      sessions: page.map(toSession),
      nextCursor: rows.length > limit ? String(page.at(-1)!.ordinal) : null,
    };
  }

  async deleteSession(sessionId: SessionId): Promise<boolean> {
    const result = await this.#query(
      'delete a session in',
      `DELETE FROM ${this.#s}.sessions WHERE session_id = $1`,
      [sessionId],
    );
    return result.rowCount === 1;
  }

  async nextMessageId(sessionId: SessionId): Promise<MessageId> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const id = this.#generate();
      if (typeof id !== 'string' || id.length === 0) continue;
      // One statement claims the ID (the primary key decides, whichever replica asks) and tells
      // an unknown session apart from a taken ID.
      const { rows } = await this.#query<{ found: boolean; claimed: boolean }>(
        'issue a message ID in',
        `WITH s AS (SELECT ordinal FROM ${this.#s}.sessions WHERE session_id = $1),
              claimed AS (
                INSERT INTO ${this.#s}.issued_ids (session, message_id) SELECT ordinal, $2 FROM s
                ON CONFLICT DO NOTHING RETURNING 1
              )
         SELECT EXISTS (SELECT 1 FROM s) AS found, EXISTS (SELECT 1 FROM claimed) AS claimed`,
        [sessionId, id],
      );
      if (rows[0]?.found !== true) throw notFound(sessionId);
      if (rows[0].claimed) return id;
    }
    throw new HistoryStoreError(
      'io',
      `could not generate an unused message ID in ${MAX_ID_ATTEMPTS} attempts`,
      { sessionId },
    );
  }

  async appendMessage(sessionId: SessionId, message: NewRetainedMessage): Promise<RetainedMessage> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkNewMessage(message);
    const via = check.defaultVia(message);
    const meta = message.meta ? JSON.stringify(message.meta) : null;
    const blocks = message.content.map((block) => JSON.stringify(block));
    const { rows } = await this.#query<{ seq: string }>(
      'append to',
      `SELECT ${this.#s}.append_message($1, $2, $3, $4, $5, $6::text[]) AS seq`,
      [sessionId, message.kind, message.messageId, via, meta, blocks],
      sessionId,
      message.messageId,
    );
    return {
      seq: Number(rows[0]!.seq),
      kind: message.kind,
      messageId: message.messageId,
      via,
      content: blocks.map((block) => JSON.parse(block) as ContentBlock),
      meta: meta === null ? null : (JSON.parse(meta) as Record<string, unknown>),
    };
  }

  async appendChunk(sessionId: SessionId, target: MessageTarget, block: ContentBlock): Promise<void> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkTarget(target);
    check.checkBlock(block, '/block');
    const [kind, messageId] = split(target);
    await this.#query(
      'append to',
      `SELECT ${this.#s}.append_chunk($1, $2, $3, $4)`,
      [sessionId, kind, messageId, JSON.stringify(block)],
      sessionId,
      messageId,
    );
  }

  async replaceContent(
    sessionId: SessionId,
    target: MessageTarget,
    content: readonly ContentBlock[] | null,
    options: { readonly via?: ReplayVia } = {},
  ): Promise<void> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkTarget(target);
    if (content !== null) check.checkContent(content, '/content');
    if (options.via !== undefined) check.checkVia(options.via, '/via');
    const [kind, messageId] = split(target);
    await this.#query(
      'write to',
      `SELECT ${this.#s}.replace_content($1, $2, $3, $4::text[], $5)`,
      [
        sessionId,
        kind,
        messageId,
        (content ?? []).map((block) => JSON.stringify(block)),
        options.via ?? null,
      ],
      sessionId,
      messageId,
    );
  }

  async isRetained(sessionId: SessionId, target: MessageTarget): Promise<boolean> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkTarget(target);
    const [kind, messageId] = split(target);
    const { rows } = await this.#query<{ retained: boolean }>(
      'read',
      `SELECT EXISTS (
         SELECT 1 FROM ${this.#s}.messages m
         WHERE m.session = s.ordinal AND m.message_id = $2 AND ($3::text IS NULL OR m.kind = $3)
       ) AS retained
       FROM ${this.#s}.sessions s WHERE s.session_id = $1`,
      [sessionId, messageId, kind],
    );
    if (rows[0] === undefined) throw notFound(sessionId);
    return rows[0].retained;
  }

  async readMessages(sessionId: SessionId, options: ReadMessagesOptions = {}): Promise<MessagePage> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    const after = check.afterSeq(options.afterSeq);
    const limit = check.pageLimit(options.limit);
    const session = await this.#query<{ ordinal: string }>(
      'read',
      `SELECT ordinal FROM ${this.#s}.sessions WHERE session_id = $1`,
      [sessionId],
    );
    const ordinal = session.rows[0]?.ordinal;
    if (ordinal === undefined) throw notFound(sessionId);
    // One statement, so the page and its blocks come from one snapshot; each message's content
    // arrives as one JSON array text (one parse per message, not per block).
    const { rows } = await this.#query<MessageRow>(
      'read',
      `SELECT m.seq, m.kind, m.message_id, m.via, m.meta,
              COALESCE((SELECT '[' || string_agg(b.block, ',' ORDER BY b.idx) || ']'
                        FROM ${this.#s}.blocks b WHERE b.session = m.session AND b.seq = m.seq), '[]') AS content
       FROM ${this.#s}.messages m
       WHERE m.session = $1 AND m.seq > $2
       ORDER BY m.seq LIMIT $3`,
      [ordinal, after, limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      messages: page.map((row) => ({
        seq: Number(row.seq),
        kind: row.kind,
        messageId: row.message_id,
        via: row.via,
        content: JSON.parse(row.content) as ContentBlock[],
        meta: row.meta === null ? null : (JSON.parse(row.meta) as Record<string, unknown>),
      })),
      nextAfterSeq: rows.length > limit && last !== undefined ? Number(last.seq) : null,
    };
  }

  messages(sessionId: SessionId, options: StreamMessagesOptions = {}): AsyncIterable<RetainedMessage> {
    return retainedMessages(this, sessionId, options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new HistoryStoreError('closed', `the history store at ${this.location} is closed`, {
        path: this.location,
      });
    }
  }

  /** Runs one statement, turning this package's raised SQLSTATEs and driver errors into HistoryStoreErrors. */
  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    doing: string,
    text: string,
    values: unknown[],
    sessionId?: string,
    messageId?: string,
  ): Promise<pg.QueryResult<R>> {
    this.#checkOpen();
    try {
      return await this.#pool.query<R>(text, values);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (sessionId !== undefined) {
        if (code === RAISED.sessionNotFound) throw notFound(sessionId);
        if (code === RAISED.duplicateMessage) {
          throw new HistoryStoreError('duplicate_message', `message "${messageId}" is already retained`, {
            sessionId,
            messageId,
          });
        }
        if (code === RAISED.ambiguousTarget) check.ambiguousTarget(messageId ?? '', sessionId);
        if (code === RAISED.messageNotFound) {
          throw new HistoryStoreError('message_not_found', `message "${messageId}" is not retained`, {
            sessionId,
            messageId,
          });
        }
      }
      if (this.#closed) {
        throw new HistoryStoreError('closed', `the history store at ${this.location} is closed`, {
          path: this.location,
          cause: error,
        });
      }
      throw translatePgError(
        error,
        this.location,
        `cannot ${doing}`,
        sessionId === undefined ? {} : { sessionId },
      );
    }
  }
}

function split(target: MessageTarget): [kind: string | null, messageId: string] {
  return typeof target === 'string' ? [null, target] : [target.kind, target.messageId];
}

function notFound(sessionId: string): HistoryStoreError {
  return new HistoryStoreError('session_not_found', `no session "${sessionId}"`, { sessionId });
}

function toSession(row: SessionRow): HistorySession {
  return Object.freeze({ sessionId: row.session_id, cwd: row.cwd, createdAt: row.created_at });
}
