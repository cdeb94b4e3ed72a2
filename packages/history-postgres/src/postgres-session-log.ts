import {
  decodeListCursor,
  encodeListCursor,
  HistoryStoreError,
  historyValidation as check,
  type ListSessionRecordsOptions,
  type LogEntry,
  LogFollowers,
  messageChange,
  type LogListener,
  type LogPage,
  type LogSubscription,
  type MessageRef,
  type NewLogEntry,
  type NewSessionRecord,
  type ReadLogOptions,
  randomMessageId,
  type SeqRange,
  type SessionLog,
  type SessionPatch,
  type SessionRecord,
  type SessionRecordPage,
  type WriteBehindLimits,
} from '@acp-kit/sdk';
import pg from 'pg';
import { type OpenedDatabase, openDatabase, type PostgresConnectionOptions } from './connection.js';
import { AppendQueue, type QueuedWrite, type SessionBatch } from './append-queue.js';
import { SessionNotOwnedError } from './session-not-owned.js';
import { translatePgError } from './pg-errors.js';
import { RAISED } from './schema.js';

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

/** A lease an append is fenced by: holder and epoch. */
interface Fence {
  readonly owner: string;
  readonly epoch: number;
}

/** One `append` call waiting to be written (see {@link AppendQueue}). */
interface QueuedAppend extends QueuedWrite {
  readonly bodies: readonly string[];
  readonly retain: readonly boolean[];
  readonly claims: readonly MessageRef[];
  /** Per entry: the retained message it changes (kind and ID, null for none), chunk or not, empty upsert or not. */
  readonly msgKinds: readonly (string | null)[];
  readonly msgIds: readonly (string | null)[];
  readonly msgChunk: readonly boolean[];
  readonly msgEmpty: readonly boolean[];
  readonly lease: Fence | undefined;
  readonly resolve: (range: SeqRange) => void;
  readonly reject: (error: unknown) => void;
}

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

/** Bounds of one write call: calls in flight at once, entries and bytes of update bodies per call. */
const WRITE_LIMITS = { lanes: 2, maxEntries: 1024, maxBytes: 4 * 1024 * 1024 } as const;
/** A notified range longer than this is read page by page, on its own. */
const MAX_COALESCED_READ = 1024;

/** How many fresh IDs `nextMessageId` tries before giving up (only a broken generator gets there). */
const MAX_ID_ATTEMPTS = 64;
/** Wait before reconnecting a lost LISTEN connection. */
const RELISTEN_DELAY_MS = 200;

/**
 * A {@link SessionLog} in PostgreSQL, shared by every agent process (replica) that opens the same
 * database and schema.
 *
 * - **One order across replicas.** An append is one call of a server-side function: it locks the
 *   session's row, numbers the entries after the session's last seq, claims their messages (a
 *   primary key decides, all or nothing) and stores them, in one transaction and one round trip.
 * - **Live across replicas.** The same transaction sends a `NOTIFY` with the appended range (not
 *   the entries: a payload holds at most 8000 bytes), delivered on commit in commit order. Each
 *   process keeps one `LISTEN` connection; when a range arrives for a session someone follows
 *   here, it reads those rows once and hands them to every follower in this process. A follower
 *   that sees a gap (a lost notification, a reconnect) reads the missing entries itself, so none is
 *   skipped or repeated. Appends made through this object reach its followers without a read.
 * - **Deletes** are announced the same way, ending followers on every replica.
 *
 * Open it with {@link PostgresSessionLog.open}; problems with the database surface there as a
 * {@link HistoryStoreError} naming it (password removed).
 */
export class PostgresSessionLog implements SessionLog {
  readonly #db: OpenedDatabase;
  readonly #s: string;
  readonly #channel: string;
  readonly #generate: () => string;
  /** Suggested to agents: streamed chunks may run this far ahead of the log (see {@link SessionLog.writeBehind}). */
  readonly writeBehind: WriteBehindLimits | undefined;
  /** Names this object in notifications, so it skips its own appends (it published them already). */
  readonly #origin = randomMessageId().slice(4);
  readonly #followers = new LogFollowers();
  /** Live subscriptions per session in this process. */
  readonly #followed = new Map<SessionId, number>();
  /** The highest seq handed to this process's followers, per followed session. */
  readonly #known = new Map<SessionId, number>();
  /** Per-session chain of deliveries, so notifications for one session are handled in order. */
  readonly #deliveries = new Map<SessionId, Promise<void>>();
  /** Appends waiting to be written; those made while a write is in flight share the next call. */
  readonly #appends = new AppendQueue<QueuedAppend>((group) => this.#writeGroup(group), WRITE_LIMITS);
  /** Notified ranges not read yet, per followed session (lowest first, highest last). */
  readonly #unread = new Map<SessionId, { first: number; last: number }>();
  /** A read of notified ranges is in flight; ranges notified meanwhile wait for the next one. */
  #reading = false;
  /** Prepared statement name per statement text (each pooled connection prepares it once). */
  readonly #statements = new Map<string, string>();
  #listener: pg.Client | undefined;
  #listening: Promise<void> | undefined;
  #closed = false;

  private constructor(
    db: OpenedDatabase,
    generate: () => string,
    writeBehind: WriteBehindLimits | undefined,
  ) {
    this.#db = db;
    this.writeBehind = writeBehind;
    this.#s = db.s;
    this.#channel = `acp_log_${db.schema}`;
    this.#generate = generate;
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

  async createSession(session: NewSessionRecord): Promise<SessionRecord> {
    this.#checkOpen();
    const input = check.checkNewSessionRecord(session);
    const config = input.config === null ? null : JSON.stringify(input.config);
    const result = await this.#query<RecordRow>(
      'create a session in',
      `INSERT INTO ${this.#s}.log_sessions (session_id, cwd, created_at, updated_at, title, config)
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
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    const { rows } = await this.#query<RecordRow>(
      'read',
      `SELECT * FROM ${this.#s}.log_sessions WHERE session_id = $1`,
      [sessionId],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async listSessions(options: ListSessionRecordsOptions = {}): Promise<SessionRecordPage> {
    this.#checkOpen();
    const limit = check.pageLimit(options.limit);
    const after = decodeListCursor(options.cursor);
    const { rows } = await this.#query<RecordRow>(
      'read',
      `SELECT * FROM ${this.#s}.log_sessions WHERE ordinal > $1 ORDER BY ordinal LIMIT $2`,
      [after, limit + 1],
    );
    const page = rows.slice(0, limit);
    return {
      sessions: page.map(toRecord),
      nextCursor: rows.length > limit ? encodeListCursor(Number(page.at(-1)!.ordinal)) : null,
    };
  }

  async updateSession(sessionId: SessionId, patch: SessionPatch): Promise<SessionRecord> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkPatch(patch);
    const { rows } = await this.#query<RecordRow>(
      'update a session in',
      `UPDATE ${this.#s}.log_sessions SET
         cwd = coalesce($2, cwd),
         title = CASE WHEN $3 THEN $4 ELSE title END,
         config = CASE WHEN $5 THEN $6 ELSE config END,
         updated_at = ${this.#s}.log_now(updated_at)
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
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    // The delete and its announcement commit together; followers on every replica end.
    const { rows } = await this.#query<{ n: string }>(
      'delete a session in',
      `WITH gone AS (DELETE FROM ${this.#s}.log_sessions WHERE session_id = $1 RETURNING 1),
            note AS (SELECT pg_notify($2, 'deleted ' || $1) FROM gone WHERE octet_length($1) <= 7000 LIMIT 1)
       SELECT (SELECT count(*) FROM gone) AS n, (SELECT count(*) FROM note) AS notified`,
      [sessionId, this.#channel],
    );
    const existed = Number(rows[0]?.n ?? 0) > 0;
    if (existed) this.#sessionGone(sessionId);
    return existed;
  }

  async nextMessageId(sessionId: SessionId): Promise<MessageId> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const id = this.#generate();
      if (typeof id !== 'string' || id.length === 0) continue;
      // One statement claims the ID (the primary key decides, whichever replica asks) and tells an
      // unknown session apart from a taken ID. A claimed message's ID is recorded here too.
      const { rows } = await this.#query<{ found: boolean; issued: boolean }>(
        'issue a message ID in',
        `WITH s AS (SELECT ordinal FROM ${this.#s}.log_sessions WHERE session_id = $1),
              issued AS (
                INSERT INTO ${this.#s}.log_issued_ids (session, message_id) SELECT ordinal, $2 FROM s
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
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkRef(ref);
    const { rows } = await this.#query<{ claimed: boolean }>(
      'read',
      `SELECT EXISTS (
         SELECT 1 FROM ${this.#s}.log_claims c
         WHERE c.session = s.ordinal AND c.kind = $2 AND c.message_id = $3
       ) AS claimed
       FROM ${this.#s}.log_sessions s WHERE s.session_id = $1`,
      [sessionId, ref.kind, ref.messageId],
    );
    if (rows[0] === undefined) throw notFound(sessionId);
    return rows[0].claimed;
  }

  append(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    return this.#append(sessionId, entries, undefined);
  }

  /**
   * `append`, fenced by the session's lease: succeeds only while `lease` (from
   * {@link PostgresSessionLeases}) is held at its epoch and not lapsed, and fails with `locked`
   * otherwise — so a replica that lost a session (paused past its lease, then taken over) cannot
   * write into a turn that is no longer its own. A takeover waits for a fenced append in flight.
   */
  appendAsOwner(sessionId: SessionId, entries: readonly NewLogEntry[], lease: Fence): Promise<SeqRange> {
    return this.#append(sessionId, entries, { owner: lease.owner, epoch: lease.epoch });
  }

  /**
   * The session's last `state_update` (running, idle, requires_action), or undefined when it has
   * none; a new owner reads it to tell an interrupted turn from a finished one.
   */
  async lastState(sessionId: SessionId): Promise<LogEntry | undefined> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    const { rows } = await this.#query<{
      ordinal: string;
      seq: string | null;
      retain: boolean;
      body: string;
    }>(
      'read',
      `SELECT s.ordinal, e.seq, e.retain, e.body
       FROM ${this.#s}.log_sessions s
       LEFT JOIN LATERAL (
         SELECT seq, retain, body FROM ${this.#s}.log_entries
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

  async #append(
    sessionId: SessionId,
    entries: readonly NewLogEntry[],
    lease: Fence | undefined,
  ): Promise<SeqRange> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    check.checkEntries(entries);
    const claims: MessageRef[] = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      if (entry.claim === undefined) continue;
      const key = `${entry.claim.kind}\u0000${entry.claim.messageId}`;
      if (seen.has(key)) check.duplicateClaim(sessionId, entry.claim);
      seen.add(key);
      claims.push(entry.claim);
    }
    const bodies: string[] = [];
    const retain: boolean[] = [];
    const msgKinds: (string | null)[] = [];
    const msgIds: (string | null)[] = [];
    const msgChunk: boolean[] = [];
    const msgEmpty: boolean[] = [];
    let bytes = 0;
    for (const entry of entries) {
      const body = JSON.stringify(entry.update);
      const kept = entry.retain ?? true;
      bodies.push(body);
      retain.push(kept);
      bytes += body.length;
      // Each retained entry that changes a message is linked to it (the message-level view's index).
      const change = kept ? messageChange(entry.update) : undefined;
      msgKinds.push(change?.kind ?? null);
      msgIds.push(change?.messageId ?? null);
      msgChunk.push(change?.op === 'chunk');
      msgEmpty.push(change?.op === 'upsert' && (change.content === undefined || change.content.length === 0));
    }
    return new Promise<SeqRange>((resolve, reject) => {
      this.#appends.push(sessionId, {
        entryCount: bodies.length,
        bytes,
        groupKey: lease === undefined ? '' : `${lease.owner}\u0000${lease.epoch}`,
        bodies,
        retain,
        claims,
        msgKinds,
        msgIds,
        msgChunk,
        msgEmpty,
        lease,
        resolve,
        reject,
      });
    });
  }

  /**
   * Writes one group (see {@link AppendQueue}) — every session's batch in one call, one round trip
   * and one commit — and settles its appends. When the call is refused (a duplicate claim, a lost
   * lease, a deleted session) it wrote nothing: each append is then written on its own, in order,
   * and fails or succeeds alone.
   */
  async #writeGroup(group: readonly SessionBatch<QueuedAppend>[]): Promise<void> {
    try {
      const ranges = await this.#write(group);
      group.forEach((batch, i) => {
        const range = ranges[i]!;
        let first = range.first;
        for (const item of batch.items) {
          const last = first + item.bodies.length - 1;
          item.resolve({ first, last });
          first = last + 1;
        }
      });
    } catch (error) {
      if (group.length === 1 && group[0]!.items.length === 1) {
        group[0]!.items[0]!.reject(error);
        return;
      }
      await Promise.all(
        group.map(async ({ sessionId, items }) => {
          for (const item of items) await this.#writeGroup([{ sessionId, items: [item] }]);
        }),
      );
    }
  }

  /** Writes the group's appends as one transaction: the plain statement when it can, else `log_write`. */
  async #write(group: readonly SessionBatch<QueuedAppend>[]): Promise<SeqRange[]> {
    const ranges =
      (group.length === 1 && (await this.#writePlain(group[0]!))) || (await this.#writeAll(group));
    group.forEach(({ sessionId, items }, i) => {
      if (!this.#followed.has(sessionId)) return;
      let seq = ranges[i]!.first;
      const stored: LogEntry[] = [];
      for (const item of items) {
        item.bodies.forEach((body, j) => {
          stored.push({ seq: seq++, update: JSON.parse(body) as Update, retain: item.retain[j]! });
        });
      }
      this.#publish(sessionId, stored);
    });
    return ranges;
  }

  /**
   * The common case of a streaming turn — one session's appends that claim nothing and open no
   * message (chunks of a message it already has, state updates) — as one plain statement, without
   * the server-side function's per-call work. Writes nothing and resolves undefined when it does
   * not apply, or when the statement finds the session, the message or the lease missing (then
   * `log_write` writes the batch, or raises the error that says why).
   */
  async #writePlain({ sessionId, items }: SessionBatch<QueuedAppend>): Promise<SeqRange[] | undefined> {
    const head = items[0]!;
    let kind: string | null = null;
    let messageId: string | null = null;
    const bodies: string[] = [];
    const retain: boolean[] = [];
    const linked: boolean[] = [];
    for (const item of items) {
      if (item.claims.length > 0) return undefined;
      for (let i = 0; i < item.bodies.length; i++) {
        const changes = item.msgKinds[i] !== null;
        if (changes) {
          // Only chunks of one message (which must be open already) are linked here.
          if (!item.msgChunk[i]) return undefined;
          if (kind === null) {
            kind = item.msgKinds[i]!;
            messageId = item.msgIds[i]!;
          } else if (kind !== item.msgKinds[i] || messageId !== item.msgIds[i]) return undefined;
        }
        bodies.push(item.bodies[i]!);
        retain.push(item.retain[i]!);
        linked.push(changes);
      }
    }
    const s = this.#s;
    const { rows } = await this.#query<{ o_last: string }>(
      'append to',
      // Fenced (an owner given): the share lock on the lease makes a takeover wait for this write.
      `WITH f AS (
         SELECT 1 FROM ${s}.log_leases
         WHERE $6::text IS NOT NULL AND session_id = $1 AND owner = $6 AND epoch = $7
           AND expires_at > clock_timestamp()
         FOR SHARE
       ),
       m AS (
         SELECT lm.ordinal FROM ${s}.log_messages lm JOIN ${s}.log_sessions ls ON lm.session = ls.ordinal
         WHERE $4::text IS NOT NULL AND ls.session_id = $1 AND lm.kind = $4 AND lm.message_id = $5
       ),
       u AS (
         UPDATE ${s}.log_sessions
         SET last_seq = last_seq + cardinality($2::text[]), updated_at = ${s}.log_now(updated_at)
         WHERE session_id = $1
           AND ($6::text IS NULL OR EXISTS (SELECT 1 FROM f))
           AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM m))
         RETURNING ordinal, last_seq
       ),
       i AS (
         INSERT INTO ${s}.log_entries (session, seq, retain, body, message)
         SELECT u.ordinal, u.last_seq - cardinality($2::text[]) + t.ord, t.retain, t.body,
                CASE WHEN t.linked THEN (SELECT ordinal FROM m) END
         FROM u, unnest($2::text[], $3::boolean[], $8::boolean[]) WITH ORDINALITY AS t(body, retain, linked, ord)
       ),
       n AS (
         SELECT pg_notify($9, (u.last_seq - cardinality($2::text[]) + 1) || ' ' || u.last_seq || ' ' || $10 || ' ' ||
           CASE WHEN octet_length($1) <= 7000 THEN $1 ELSE '' END)
         FROM u
       )
       SELECT u.last_seq AS o_last, (SELECT count(*) FROM n) AS notified FROM u`,
      [
        sessionId,
        bodies,
        retain,
        kind,
        messageId,
        head.lease?.owner ?? null,
        head.lease?.epoch ?? null,
        linked,
        this.#channel,
        this.#origin,
      ],
      sessionId,
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const last = Number(row.o_last);
    return [{ first: last - bodies.length + 1, last }];
  }

  /** One call of the schema's `log_write`: the group's appends, as one transaction. */
  async #writeAll(group: readonly SessionBatch<QueuedAppend>[]): Promise<SeqRange[]> {
    const sessions: string[] = [];
    const owners: (string | null)[] = [];
    const epochs: (number | null)[] = [];
    const starts: number[] = [];
    const counts: number[] = [];
    const claimStarts: number[] = [];
    const claimCounts: number[] = [];
    const bodies: string[] = [];
    const retain: boolean[] = [];
    const claimKinds: string[] = [];
    const claimIds: string[] = [];
    const msgKinds: (string | null)[] = [];
    const msgIds: (string | null)[] = [];
    const msgChunk: boolean[] = [];
    const msgEmpty: boolean[] = [];
    for (const { sessionId, items } of group) {
      const head = items[0]!;
      sessions.push(sessionId);
      owners.push(head.lease?.owner ?? null);
      epochs.push(head.lease?.epoch ?? null);
      starts.push(bodies.length + 1);
      claimStarts.push(claimIds.length + 1);
      for (const item of items) {
        bodies.push(...item.bodies);
        retain.push(...item.retain);
        msgKinds.push(...item.msgKinds);
        msgIds.push(...item.msgIds);
        msgChunk.push(...item.msgChunk);
        msgEmpty.push(...item.msgEmpty);
        for (const claim of item.claims) {
          claimKinds.push(claim.kind);
          claimIds.push(claim.messageId);
        }
      }
      counts.push(bodies.length + 1 - starts.at(-1)!);
      claimCounts.push(claimIds.length + 1 - claimStarts.at(-1)!);
    }
    const { rows } = await this.#query<{ o_index: number; o_first: string; o_last: string }>(
      'append to',
      // The schema's replay-preference argument (p_vias, for the message-level store of old) is null.
      `SELECT o_index, o_first, o_last FROM ${this.#s}.log_write(
         $1::text[], $2::text[], $3::bigint[], $4::text[], $5::integer[], $6::integer[], $7::integer[],
         $8::integer[], $9::text[], $10::boolean[], $11::text[], $12::text[], $13::text[], $14::text[],
         $15::boolean[], $16::boolean[], $17, $18)`,
      [
        sessions,
        owners,
        epochs,
        sessions.map(() => null),
        starts,
        counts,
        claimStarts,
        claimCounts,
        bodies,
        retain,
        claimKinds,
        claimIds,
        msgKinds,
        msgIds,
        msgChunk,
        msgEmpty,
        this.#channel,
        this.#origin,
      ],
      // Errors are told apart per session only for a call of one session (a group falls back to that).
      group.length === 1 ? group[0]!.sessionId : undefined,
    );
    const ranges: SeqRange[] = new Array(group.length);
    for (const row of rows)
      ranges[row.o_index - 1] = { first: Number(row.o_first), last: Number(row.o_last) };
    return ranges;
  }

  async read(sessionId: SessionId, options: ReadLogOptions = {}): Promise<LogPage> {
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    const after = check.afterSeq(options.afterSeq);
    const limit = check.pageLimit(options.limit);
    // One statement: the session's last seq and the page come from one snapshot.
    const { rows } = await this.#query<{
      last_seq: string;
      seq: string | null;
      retain: boolean;
      body: string;
    }>(
      'read',
      `SELECT s.last_seq, e.seq, e.retain, e.body
       FROM ${this.#s}.log_sessions s
       LEFT JOIN LATERAL (
         SELECT seq, retain, body FROM ${this.#s}.log_entries
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
    this.#checkOpen();
    check.checkId(sessionId, '/sessionId');
    const from = check.afterSeq(afterSeq);
    let active = true;
    const end = () => {
      if (!active) return;
      active = false;
      const count = (this.#followed.get(sessionId) ?? 1) - 1;
      if (count > 0) this.#followed.set(sessionId, count);
      else {
        this.#followed.delete(sessionId);
        this.#known.delete(sessionId);
      }
    };
    this.#followed.set(sessionId, (this.#followed.get(sessionId) ?? 0) + 1);
    const listening = this.#listen();
    const subscription = this.#followers.subscribe(
      sessionId,
      from,
      {
        entries: (batch) => listener.entries(batch),
        error: (error) => {
          end();
          listener.error?.(error);
        },
      },
      // The backlog is read only once this process listens, so nothing committed after the last
      // backlog read can be missed.
      async (id, options) => {
        await listening;
        return this.read(id, options);
      },
    );
    return {
      close: () => {
        end();
        subscription.close();
      },
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#followers.fail(new HistoryStoreError('closed', `the session log at ${this.location} is closed`));
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.#db.pool.end();
  }

  /** Hands entries to this process's followers of the session, and remembers how far they go. */
  #publish(sessionId: SessionId, entries: readonly LogEntry[]): void {
    if (entries.length === 0) return;
    const last = entries.at(-1)!.seq;
    if (last > (this.#known.get(sessionId) ?? 0)) this.#known.set(sessionId, last);
    this.#followers.published(sessionId, entries);
  }

  #sessionGone(sessionId: SessionId): void {
    this.#followers.fail(
      new HistoryStoreError('session_not_found', `session "${sessionId}" was deleted`, { sessionId }),
      sessionId,
    );
  }

  /** Starts (once) the LISTEN connection; resolves when notifications flow. */
  #listen(): Promise<void> {
    this.#listening ??= this.#connectListener().catch((error) => {
      this.#listening = undefined;
      throw translatePgError(error, this.location, 'cannot listen for appends to');
    });
    return this.#listening;
  }

  async #connectListener(): Promise<void> {
    const client = new pg.Client(this.#db.clientConfig);
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload !== undefined) this.#notified(message.payload);
    });
    client.on('error', () => this.#lostListener(client));
    client.on('end', () => this.#lostListener(client));
    await client.connect();
    if (this.#closed) {
      await client.end();
      return;
    }
    await client.query(`LISTEN "${this.#channel}"`);
    this.#listener = client;
  }

  /** The LISTEN connection dropped: reconnect, then let every follower here check for missed entries. */
  #lostListener(client: pg.Client): void {
    if (this.#listener !== client || this.#closed) return;
    this.#listener = undefined;
    this.#listening = undefined;
    const retry = () => {
      if (this.#closed || this.#followed.size === 0) return;
      this.#listen().then(
        () => {
          for (const sessionId of this.#followed.keys()) this.#resync(sessionId);
        },
        () => setTimeout(retry, RELISTEN_DELAY_MS).unref(),
      );
    };
    setTimeout(retry, RELISTEN_DELAY_MS).unref();
  }

  #notified(payload: string): void {
    if (payload.startsWith('deleted ')) {
      const sessionId = payload.slice('deleted '.length);
      if (this.#followed.has(sessionId)) this.#sessionGone(sessionId);
      return;
    }
    const [firstText, lastText, origin, ...rest] = payload.split(' ');
    const first = Number(firstText);
    const last = Number(lastText);
    const sessionId = rest.join(' ');
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last)) return;
    if (origin === this.#origin) return; // appended here: `append` handed the entries over
    if (sessionId === '') {
      // A session ID too long for a payload: every followed session checks.
      for (const id of this.#followed.keys()) this.#resync(id);
      return;
    }
    if (!this.#followed.has(sessionId)) return;
    const unread = this.#unread.get(sessionId);
    if (unread === undefined) this.#unread.set(sessionId, { first, last });
    else {
      unread.first = Math.min(unread.first, first);
      unread.last = Math.max(unread.last, last);
    }
    if (!this.#reading) {
      this.#reading = true;
      queueMicrotask(() => void this.#readNotified());
    }
  }

  /**
   * Reads the notified ranges of every followed session in one statement and hands them to the
   * followers here; ranges notified while it is in flight are read by the next one. Each session's
   * read starts where this process already is, if that is inside the notified range; a follower
   * further behind reads its own gap.
   */
  async #readNotified(): Promise<void> {
    try {
      while (this.#unread.size > 0 && !this.#closed) {
        const sessions: SessionId[] = [];
        const afters: number[] = [];
        const lasts: number[] = [];
        for (const [sessionId, { first, last }] of this.#unread) {
          this.#unread.delete(sessionId);
          const known = this.#known.get(sessionId) ?? 0;
          if (!this.#followed.has(sessionId) || last <= known) continue;
          const after = known >= first ? known : first - 1;
          if (last - after > MAX_COALESCED_READ) {
            this.#deliver(sessionId, () => this.#readRange(sessionId, after, last));
            continue;
          }
          sessions.push(sessionId);
          afters.push(after);
          lasts.push(last);
        }
        if (sessions.length === 0) continue;
        let rows: { i: number; seq: string; retain: boolean; body: string }[];
        try {
          ({ rows } = await this.#query<{ i: number; seq: string; retain: boolean; body: string }>(
            'read',
            `SELECT r.i::integer AS i, e.seq, e.retain, e.body
             FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS r(session_id, after, last, i)
             JOIN ${this.#s}.log_sessions s ON s.session_id = r.session_id
             JOIN ${this.#s}.log_entries e ON e.session = s.ordinal AND e.seq > r.after AND e.seq <= r.last
             ORDER BY r.i, e.seq`,
            [sessions, afters, lasts],
          ));
        } catch {
          if (this.#closed) return;
          // A failed read is tried again shortly (per session), so followers do not wait for the
          // session's next append to get these entries.
          for (const sessionId of sessions) {
            setTimeout(
              () => this.#followed.has(sessionId) && this.#resync(sessionId),
              RELISTEN_DELAY_MS,
            ).unref();
          }
          continue;
        }
        let at = 0;
        while (at < rows.length) {
          const index = rows[at]!.i;
          const entries: LogEntry[] = [];
          for (; at < rows.length && rows[at]!.i === index; at++) {
            const row = rows[at]!;
            entries.push({
              seq: Number(row.seq),
              retain: row.retain,
              update: JSON.parse(row.body) as Update,
            });
          }
          const sessionId = sessions[index - 1]!;
          if (this.#followed.has(sessionId)) this.#publish(sessionId, entries);
        }
      }
    } finally {
      this.#reading = false;
      if (this.#unread.size > 0 && !this.#closed) {
        this.#reading = true;
        queueMicrotask(() => void this.#readNotified());
      }
    }
  }

  /** Reads the entries after `after` up to `last` page by page and hands them to the followers here. */
  async #readRange(sessionId: SessionId, after: number, last: number): Promise<void> {
    while (after < last && this.#followed.has(sessionId)) {
      const page = await this.read(sessionId, {
        afterSeq: after,
        limit: Math.min(last - after, MAX_COALESCED_READ),
      });
      if (page.entries.length === 0) break;
      this.#publish(sessionId, page.entries);
      after = page.entries.at(-1)!.seq;
    }
  }

  /** Hands the session's last entry to its followers here; one that is behind reads the rest. */
  #resync(sessionId: SessionId): void {
    this.#deliver(sessionId, async () => {
      const { lastSeq } = await this.read(sessionId, { afterSeq: 0, limit: 1 });
      if (lastSeq <= (this.#known.get(sessionId) ?? 0)) return;
      const page = await this.read(sessionId, { afterSeq: lastSeq - 1, limit: 1 });
      this.#publish(sessionId, page.entries);
    });
  }

  #deliver(sessionId: SessionId, work: () => Promise<void>): void {
    const previous = this.#deliveries.get(sessionId) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((error: unknown) => {
        if (this.#closed) return;
        const code = (error as { code?: unknown }).code;
        // The session is gone: end its followers. Anything else (a failed read) is tried again
        // shortly, so followers do not wait for the session's next append to get these entries.
        if (code === 'session_not_found') this.#sessionGone(sessionId);
        else
          setTimeout(
            () => this.#followed.has(sessionId) && this.#resync(sessionId),
            RELISTEN_DELAY_MS,
          ).unref();
      })
      .finally(() => {
        if (this.#deliveries.get(sessionId) === next) this.#deliveries.delete(sessionId);
      });
    this.#deliveries.set(sessionId, next);
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new HistoryStoreError('closed', `the session log at ${this.location} is closed`, {
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
  ): Promise<pg.QueryResult<R>> {
    this.#checkOpen();
    let name = this.#statements.get(text);
    if (name === undefined) {
      // Prepared once per pooled connection, then only bound and run: no parse or plan per call.
      name = `acp_log_${this.#statements.size + 1}`;
      this.#statements.set(text, name);
    }
    try {
      return await this.#db.pool.query<R>({ name, text, values });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (sessionId !== undefined) {
        if (code === RAISED.sessionNotFound) throw notFound(sessionId);
        if (code === RAISED.leaseLost) {
          throw new SessionNotOwnedError(sessionId, 'lost');
        }
        if (code === RAISED.duplicateMessage) {
          const messageId = (error as Error).message;
          const kind = (error as { detail?: string }).detail ?? 'message';
          throw new HistoryStoreError('duplicate_message', `${kind} "${messageId}" is already claimed`, {
            sessionId,
            messageId,
          });
        }
      }
      if (this.#closed) {
        throw new HistoryStoreError('closed', `the session log at ${this.location} is closed`, {
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

function notFound(sessionId: string): HistoryStoreError {
  return new HistoryStoreError('session_not_found', `no session "${sessionId}"`, { sessionId });
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
