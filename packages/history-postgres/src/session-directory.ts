import { HistoryStoreError } from '@acp-kit/sdk';
import {
  decodeListCursor,
  encodeListCursor,
  historyValidation as check,
  type ListSessionRecordsOptions,
  type MessageRef,
  type NewSessionRecord,
  type SessionPatch,
  type SessionRecord,
  type SessionRecordPage,
} from '@acp-kit/sdk/adapter';
import { type LogDatabase, notFound } from './log-database.js';
import type { NotificationFollower } from './notification-follower.js';

type SessionId = SessionRecord['sessionId'];
type MessageId = MessageRef['messageId'];

interface RecordRow {
  ordinal: string;
  session_id: string;
  cwd: string;
  created_at: string;
  updated_at: string;
  title: string | null;
  config: string | null;
  last_seq: string;
}

/** How many fresh IDs `nextMessageId` tries before giving up (only a broken generator gets there). */
const MAX_ID_ATTEMPTS = 64;

/**
 * The session directory of a {@link PostgresSessionLog}: the session records, the IDs issued and
 * claimed in each,. A delete is announced to every
 * replica in the same statement, and ends this process's followers of the session.
 */
export class SessionDirectory {
  readonly #db: LogDatabase;
  readonly #follower: NotificationFollower;
  readonly #generate: () => string;

  constructor(db: LogDatabase, follower: NotificationFollower, generate: () => string) {
    this.#db = db;
    this.#follower = follower;
    this.#generate = generate;
  }

  async createSession(session: NewSessionRecord): Promise<SessionRecord> {
    this.#db.checkOpen();
    const input = check.checkNewSessionRecord(session);
    const config = input.config === null ? null : JSON.stringify(input.config);
    const result = await this.#db.query<RecordRow>(
      'create a session in',
      `INSERT INTO ${this.#db.s}.log_sessions (session_id, cwd, created_at, updated_at, title, config)
       VALUES ($1, $2, $3, $3, $4, $5)
       ON CONFLICT (session_id) DO NOTHING RETURNING *`,
      [input.sessionId, input.cwd, input.createdAt, input.title, config],
    );
    const row = result.rows[0];
    if (row === undefined) {
      throw new HistoryStoreError('session_exists', `session "${input.sessionId}" already exists`, {
        sessionId: input.sessionId,
      });
    }
    return toRecord(row);
  }

  async getSession(sessionId: SessionId): Promise<SessionRecord | undefined> {
    this.#db.checkOpen();
    check.checkId(sessionId, '/sessionId');
    const { rows } = await this.#db.query<RecordRow>(
      'read',
      `SELECT * FROM ${this.#db.s}.log_sessions WHERE session_id = $1`,
      [sessionId],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async listSessions(options: ListSessionRecordsOptions = {}): Promise<SessionRecordPage> {
    this.#db.checkOpen();
    const limit = check.pageLimit(options.limit);
    const after = decodeListCursor(options.cursor);
    const { rows } = await this.#db.query<RecordRow>(
      'read',
      `SELECT * FROM ${this.#db.s}.log_sessions WHERE ordinal > $1 ORDER BY ordinal LIMIT $2`,
      [after, limit + 1],
    );
    const page = rows.slice(0, limit);
    return {
      sessions: page.map(toRecord),
      nextCursor: rows.length > limit ? encodeListCursor(Number(page.at(-1)!.ordinal)) : null,
    };
  }

  async updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord> {
    this.#db.checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkPatch(patch);
    const { rows } = await this.#db.query<RecordRow>(
      'update a session in',
      `UPDATE ${this.#db.s}.log_sessions SET
         cwd = coalesce($2, cwd),
         title = CASE WHEN $3 THEN $4 ELSE title END,
         config = CASE WHEN $5 THEN $6 ELSE config END,
         updated_at = ${this.#db.s}.log_now(updated_at)
       WHERE session_id = $1 RETURNING *`,
      [
        sessionId,
        patch.cwd ?? null,
        patch.title !== undefined,
        patch.title ?? null,
        patch.config !== undefined,
        patch.config === undefined || patch.config === null ? null : JSON.stringify(patch.config),
      ],
    );
    if (rows[0] === undefined) throw notFound(sessionId);
    return toRecord(rows[0]);
  }

  async deleteSession(sessionId: SessionId): Promise<boolean> {
    this.#db.checkOpen();
    check.checkId(sessionId, '/sessionId');
    // The delete and its announcement commit together; followers on every replica end.
    const { rows } = await this.#db.query<{ n: string }>(
      'delete a session in',
      `WITH gone AS (DELETE FROM ${this.#db.s}.log_sessions WHERE session_id = $1 RETURNING 1),
            note AS (SELECT pg_notify($2, 'deleted ' || $1) FROM gone WHERE octet_length($1) <= 7000 LIMIT 1)
       SELECT (SELECT count(*) FROM gone) AS n, (SELECT count(*) FROM note) AS notified`,
      [sessionId, this.#db.channel],
    );
    const existed = Number(rows[0]?.n ?? 0) > 0;
    if (existed) this.#follower.sessionGone(sessionId);
    return existed;
  }

  async nextMessageId(sessionId: SessionId): Promise<MessageId> {
    this.#db.checkOpen();
    check.checkId(sessionId, '/sessionId');
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const id = this.#generate();
      if (typeof id !== 'string' || id.length === 0) continue;
      // One statement claims the ID (the primary key decides, whichever replica asks) and tells an
      // unknown session apart from a taken ID. A claimed message's ID is recorded here too.
      const { rows } = await this.#db.query<{ found: boolean; issued: boolean }>(
        'issue a message ID in',
        `WITH s AS (SELECT ordinal FROM ${this.#db.s}.log_sessions WHERE session_id = $1),
              issued AS (
                INSERT INTO ${this.#db.s}.log_issued_ids (session, message_id) SELECT ordinal, $2 FROM s
                ON CONFLICT DO NOTHING RETURNING 1
              )
         SELECT EXISTS (SELECT 1 FROM s) AS found, EXISTS (SELECT 1 FROM issued) AS issued`,
        [sessionId, id],
      );
      if (rows[0]?.found !== true) throw notFound(sessionId);
      if (rows[0].issued) return id;
    }
    throw new HistoryStoreError(
      'io',
      `could not generate an unused message ID in ${MAX_ID_ATTEMPTS} attempts`,
      {
        sessionId,
      },
    );
  }

  async isClaimed(sessionId: SessionId, ref: MessageRef): Promise<boolean> {
    this.#db.checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkRef(ref);
    const { rows } = await this.#db.query<{ claimed: boolean }>(
      'read',
      `SELECT EXISTS (
         SELECT 1 FROM ${this.#db.s}.log_claims c
         WHERE c.session = s.ordinal AND c.kind = $2 AND c.message_id = $3
       ) AS claimed
       FROM ${this.#db.s}.log_sessions s WHERE s.session_id = $1`,
      [sessionId, ref.kind, ref.messageId],
    );
    if (rows[0] === undefined) throw notFound(sessionId);
    return rows[0].claimed;
  }
}

function toRecord(row: RecordRow): SessionRecord {
  return Object.freeze({
    sessionId: row.session_id,
    cwd: row.cwd,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    title: row.title,
    config: row.config === null ? null : (JSON.parse(row.config) as Record<string, unknown>),
    lastSeq: Number(row.last_seq),
  });
}
