import {
  historyValidation as check,
  type LogEntry,
  type MessageRef,
  messageChange,
  type NewLogEntry,
  type SeqRange,
  type SessionRecord,
} from '@acp-kit/sdk/adapter';
import { AppendQueue, type QueuedWrite, type SessionBatch } from './append-queue.js';
import type { LogDatabase } from './log-database.js';
import type { NotificationFollower } from './notification-follower.js';
import { statementRefused } from './statement-refused.js';

type SessionId = SessionRecord['sessionId'];
type Update = LogEntry['update'];

/** A lease an append is fenced by: holder and epoch. */
export interface Fence {
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

/** Bounds of one write call: calls in flight at once, entries and bytes of update bodies per call. */
const WRITE_LIMITS = { lanes: 2, maxEntries: 1024, maxBytes: 4 * 1024 * 1024 } as const;

/**
 * The write path of a {@link PostgresSessionLog}. An append is one call of a server-side function
 * (or, for the chunks of a streaming turn, one plain statement): it locks the session's row,
 * numbers the entries after the session's last seq, claims their messages (a primary key decides,
 * all or nothing), stores them and announces the range with `NOTIFY`, in one transaction and one
 * round trip. Appends made while a write is in flight share the next call (group commit), and
 * reach this process's followers without a read.
 */
export class LogAppender {
  readonly #db: LogDatabase;
  readonly #follower: NotificationFollower;
  /** Appends waiting to be written; those made while a write is in flight share the next call. */
  readonly #appends = new AppendQueue<QueuedAppend>((group) => this.#writeGroup(group), WRITE_LIMITS);

  constructor(db: LogDatabase, follower: NotificationFollower) {
    this.#db = db;
    this.#follower = follower;
  }

  /**
   * Queues `entries` for the session (fenced by `lease` when given) and resolves with their
   * sequence numbers once they are committed.
   */
  async append(
    sessionId: SessionId,
    entries: readonly NewLogEntry[],
    lease: Fence | undefined,
  ): Promise<SeqRange> {
    this.#db.checkOpen();
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
   * and one commit — and settles its appends. When the server refused the call (a duplicate claim,
   * a lost lease, a deleted session: see {@link statementRefused}) it wrote nothing: each append is
   * then written on its own, in order, and fails or succeeds alone. When its outcome is unknown
   * (the connection failed before the answer came back) the call may have committed: every append
   * of the group fails with the error, and none is written again, which could write it twice.
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
      if ((group.length === 1 && group[0]!.items.length === 1) || !statementRefused(error)) {
        for (const batch of group) for (const item of batch.items) item.reject(error);
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
      if (!this.#follower.follows(sessionId)) return;
      let seq = ranges[i]!.first;
      const stored: LogEntry[] = [];
      for (const item of items) {
        item.bodies.forEach((body, j) => {
          stored.push({ seq: seq++, update: JSON.parse(body) as Update, retain: item.retain[j]! });
        });
      }
      this.#follower.publish(sessionId, stored);
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
    const s = this.#db.s;
    const { rows } = await this.#db.query<{ o_last: string }>(
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
        this.#db.channel,
        this.#db.origin,
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
    const { rows } = await this.#db.query<{ o_index: number; o_first: string; o_last: string }>(
      'append to',
      // The schema's replay-preference argument (p_vias, for the message-level store of old) is null.
      `SELECT o_index, o_first, o_last FROM ${this.#db.s}.log_write(
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
        this.#db.channel,
        this.#db.origin,
      ],
      // Errors are told apart per session only for a call of one session (a group falls back to that).
      group.length === 1 ? group[0]!.sessionId : undefined,
    );
    const ranges: SeqRange[] = new Array(group.length);
    for (const row of rows)
      ranges[row.o_index - 1] = { first: Number(row.o_first), last: Number(row.o_last) };
    return ranges;
  }
}
