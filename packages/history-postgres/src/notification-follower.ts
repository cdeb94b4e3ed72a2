import { HistoryStoreError } from '@acp-kit/sdk';
import {
  historyValidation as check,
  type LogEntry,
  LogFollowers,
  type LogListener,
  type LogPage,
  type LogSubscription,
  type ReadLogOptions,
  type SessionRecord,
} from '@acp-kit/sdk/adapter';
import type pg from 'pg';
import type { LogDatabase } from './log-database.js';
import { translatePgError } from './pg-errors.js';

type SessionId = SessionRecord['sessionId'];
type Update = LogEntry['update'];

/** A notified range longer than this is read page by page, on its own. */
const MAX_COALESCED_READ = 1024;
/** Wait before reconnecting a lost LISTEN connection. */
const RELISTEN_DELAY_MS = 200;
/** How often the followed sessions' last seqs are compared with what reached this process. */
const AUDIT_EVERY_MS = 1000;

/**
 * The live side of a {@link PostgresSessionLog}: this process's followers of its sessions.
 *
 * Every append's transaction sends a `NOTIFY` with the appended range (not the entries: a payload
 * holds at most 8000 bytes), delivered on commit in commit order. The follower keeps one `LISTEN`
 * connection. When a range arrives for a session someone follows here, it reads those rows once
 * and hands them to every follower in this process. A follower that sees a gap (a lost
 * notification, a reconnect) reads the missing entries itself, so none is skipped or repeated.
 * Since a notification can also be lost without a gap ever showing (the last append of a turn,
 * sent while this process reconnected), an audit compares the followed sessions' last seqs with
 * what reached this process once a second, and reads a session found behind.
 * Deletes are announced the same way and end the session's followers on every replica.
 */
export class NotificationFollower {
  readonly #db: LogDatabase;
  readonly #read: (sessionId: SessionId, options: ReadLogOptions) => Promise<LogPage>;
  readonly #followers = new LogFollowers();
  /** Live subscriptions per session in this process. */
  readonly #followed = new Map<SessionId, number>();
  /** The highest seq handed to this process's followers, per followed session. */
  readonly #known = new Map<SessionId, number>();
  /** Per-session chain of deliveries, so notifications for one session are handled in order. */
  readonly #deliveries = new Map<SessionId, Promise<void>>();
  /** Notified ranges not read yet, per followed session (lowest first, highest last). */
  readonly #unread = new Map<SessionId, { first: number; last: number }>();
  /** A read of notified ranges is in flight; ranges notified meanwhile wait for the next one. */
  #reading = false;
  #listener: pg.Client | undefined;
  /** How many times the LISTEN connection was lost (each is set up again). */
  listenReconnects = 0;
  #listening: Promise<void> | undefined;
  /** The next attempt to set up the LISTEN connection, while one is scheduled. */
  #relistenTimer: NodeJS.Timeout | undefined;
  /** The audit's timer, while sessions are followed here. */
  #auditTimer: NodeJS.Timeout | undefined;
  /** Per followed session: the last seq the previous audit found in the database, if it was ahead. */
  readonly #behind = new Map<SessionId, number>();

  /** `read` reads a page of the log (the backlog, and gaps). */
  constructor(db: LogDatabase, read: (sessionId: SessionId, options: ReadLogOptions) => Promise<LogPage>) {
    this.#db = db;
    this.#read = read;
  }

  /** Whether a subscription of this process follows the session. */
  follows(sessionId: SessionId): boolean {
    return this.#followed.has(sessionId);
  }

  subscribe(sessionId: SessionId, afterSeq: number, listener: LogListener): LogSubscription {
    this.#db.checkOpen();
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
        this.#behind.delete(sessionId);
      }
    };
    this.#followed.set(sessionId, (this.#followed.get(sessionId) ?? 0) + 1);
    // The new follower reads everything up to `from` itself; a follower here further behind reads
    // its own gap when the next entries arrive.
    if (from > (this.#known.get(sessionId) ?? 0)) this.#known.set(sessionId, from);
    this.#startAudit();
    // Started now; a failure is retried (see #listen) and reported by the backlog read below.
    this.#listen().catch(() => undefined);
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
      // backlog read can be missed. Each read waits for the LISTEN connection as it is then: one
      // that could not be set up (the database went away meanwhile) fails this read, which the
      // follower tries again, and its next read waits for the next attempt — not for the failed one.
      async (id, options) => {
        await this.#listen();
        return this.#read(id, options);
      },
    );
    return {
      close: () => {
        end();
        subscription.close();
      },
    };
  }

  /** Hands entries to this process's followers of the session, and remembers how far they go. */
  publish(sessionId: SessionId, entries: readonly LogEntry[]): void {
    if (entries.length === 0) return;
    const last = entries.at(-1)!.seq;
    if (last > (this.#known.get(sessionId) ?? 0)) this.#known.set(sessionId, last);
    this.#followers.published(sessionId, entries);
  }

  /** The session was deleted: its followers here end. */
  sessionGone(sessionId: SessionId): void {
    this.#followers.fail(
      new HistoryStoreError('session_not_found', `session "${sessionId}" was deleted`, { sessionId }),
      sessionId,
    );
  }

  /**
   * Starts (once) the LISTEN connection; resolves when notifications flow. A failed attempt is
   * forgotten (the next call tries again) and, while sessions are followed here, tried again
   * shortly by itself, as a lost connection is: nothing else would, when no follower is reading.
   */
  #listen(): Promise<void> {
    this.#listening ??= this.#connectListener().catch((error) => {
      this.#listening = undefined;
      this.#relisten();
      throw translatePgError(error, this.#db.location, 'cannot listen for appends to');
    });
    return this.#listening;
  }

  async #connectListener(): Promise<void> {
    const client = new this.#db.Client(this.#db.clientConfig);
    client.on('notification', (message) => {
      if (message.channel === this.#db.channel && message.payload !== undefined)
        this.#notified(message.payload);
    });
    client.on('error', () => this.#lostListener(client));
    client.on('end', () => this.#lostListener(client));
    try {
      await client.connect();
      if (this.#db.closed) {
        await client.end();
        return;
      }
      await client.query(`LISTEN "${this.#db.channel}"`);
    } catch (error) {
      // Not awaited: ending a connection that failed half-way may wait for a socket event.
      client.end().catch(() => undefined);
      throw error;
    }
    this.#listener = client;
  }

  /** The LISTEN connection dropped: reconnect, then let every follower here check for missed entries. */
  #lostListener(client: pg.Client): void {
    if (this.#listener !== client || this.#db.closed) return;
    this.#listener = undefined;
    this.#listening = undefined;
    this.listenReconnects++;
    this.#relisten();
  }

  /**
   * Sets the LISTEN connection up again shortly (one attempt scheduled at a time; a failed one
   * schedules the next), while sessions are followed here; once it is up, every followed session
   * is checked for entries appended while nothing listened.
   */
  #relisten(): void {
    if (this.#relistenTimer !== undefined || this.#db.closed || this.#followed.size === 0) return;
    this.#relistenTimer = setTimeout(() => {
      this.#relistenTimer = undefined;
      if (this.#db.closed || this.#followed.size === 0) return;
      this.#listen().then(
        () => {
          for (const sessionId of this.#followed.keys()) this.#resync(sessionId);
        },
        () => undefined, // #listen scheduled the next attempt
      );
    }, RELISTEN_DELAY_MS).unref();
  }

  #notified(payload: string): void {
    if (payload.startsWith('deleted ')) {
      const sessionId = payload.slice('deleted '.length);
      if (this.#followed.has(sessionId)) this.sessionGone(sessionId);
      return;
    }
    const [firstText, lastText, origin, ...rest] = payload.split(' ');
    const first = Number(firstText);
    const last = Number(lastText);
    const sessionId = rest.join(' ');
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last)) return;
    if (origin === this.#db.origin) return; // appended here: `append` handed the entries over
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
      while (this.#unread.size > 0 && !this.#db.closed) {
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
          ({ rows } = await this.#db.query<{ i: number; seq: string; retain: boolean; body: string }>(
            'read',
            `SELECT r.i::integer AS i, e.seq, e.retain, e.body
             FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS r(session_id, after, last, i)
             JOIN ${this.#db.s}.log_sessions s ON s.session_id = r.session_id
             JOIN ${this.#db.s}.log_entries e ON e.session = s.ordinal AND e.seq > r.after AND e.seq <= r.last
             ORDER BY r.i, e.seq`,
            [sessions, afters, lasts],
          ));
        } catch {
          if (this.#db.closed) return;
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
          if (this.#followed.has(sessionId)) this.publish(sessionId, entries);
        }
      }
    } finally {
      this.#reading = false;
      if (this.#unread.size > 0 && !this.#db.closed) {
        this.#reading = true;
        queueMicrotask(() => void this.#readNotified());
      }
    }
  }

  /** Reads the entries after `after` up to `last` page by page and hands them to the followers here. */
  async #readRange(sessionId: SessionId, after: number, last: number): Promise<void> {
    while (after < last && this.#followed.has(sessionId)) {
      const page = await this.#read(sessionId, {
        afterSeq: after,
        limit: Math.min(last - after, MAX_COALESCED_READ),
      });
      if (page.entries.length === 0) break;
      this.publish(sessionId, page.entries);
      after = page.entries.at(-1)!.seq;
    }
  }

  /** Hands the session's last entry to its followers here; one that is behind reads the rest. */
  #resync(sessionId: SessionId): void {
    this.#deliver(sessionId, async () => {
      const { lastSeq } = await this.#read(sessionId, { afterSeq: 0, limit: 1 });
      if (lastSeq <= (this.#known.get(sessionId) ?? 0)) return;
      const page = await this.#read(sessionId, { afterSeq: lastSeq - 1, limit: 1 });
      this.publish(sessionId, page.entries);
    });
  }

  #startAudit(): void {
    if (this.#auditTimer !== undefined || this.#db.closed) return;
    const tick = (): void => {
      this.#auditTimer = undefined;
      if (this.#db.closed || this.#followed.size === 0) return;
      void this.#audit().finally(() => {
        if (!this.#db.closed && this.#followed.size > 0 && this.#auditTimer === undefined)
          this.#auditTimer = setTimeout(tick, AUDIT_EVERY_MS).unref();
      });
    };
    this.#auditTimer = setTimeout(tick, AUDIT_EVERY_MS).unref();
  }

  /**
   * The safety net under `LISTEN`/`NOTIFY`: a notification can be lost without the connection
   * reporting it (sent while this process was reconnecting, or read by a statement that failed).
   * Once a second, one statement reads the last seq of every session followed here; a session
   * found ahead of what reached this process twice in a row with the same last seq (so not a
   * notification still on its way) is read again. A failed audit is skipped: the next one tries.
   */
  async #audit(): Promise<void> {
    const sessions = [...this.#followed.keys()];
    let rows: { session_id: string; last_seq: string }[];
    try {
      ({ rows } = await this.#db.query<{ session_id: string; last_seq: string }>(
        'read the last entries of',
        `SELECT session_id, last_seq FROM ${this.#db.s}.log_sessions WHERE session_id = ANY($1::text[])`,
        [sessions],
      ));
    } catch {
      return;
    }
    for (const row of rows) {
      const sessionId = row.session_id;
      const last = Number(row.last_seq);
      if (!this.#followed.has(sessionId)) continue;
      if (last <= (this.#known.get(sessionId) ?? 0)) {
        this.#behind.delete(sessionId);
        continue;
      }
      if (this.#behind.get(sessionId) !== last) {
        this.#behind.set(sessionId, last);
        continue;
      }
      this.#behind.delete(sessionId);
      this.#resync(sessionId);
    }
  }

  #deliver(sessionId: SessionId, work: () => Promise<void>): void {
    const previous = this.#deliveries.get(sessionId) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((error: unknown) => {
        if (this.#db.closed) return;
        const code = (error as { code?: unknown }).code;
        // The session is gone: end its followers. Anything else (a failed read) is tried again
        // shortly, so followers do not wait for the session's next append to get these entries.
        if (code === 'session_not_found') this.sessionGone(sessionId);
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

  /** Ends every follower (the log closed) and the LISTEN connection. */
  async close(): Promise<void> {
    clearTimeout(this.#auditTimer);
    this.#auditTimer = undefined;
    clearTimeout(this.#relistenTimer);
    this.#relistenTimer = undefined;
    this.#followers.fail(
      new HistoryStoreError('closed', `the session log at ${this.#db.location} is closed`),
    );
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
  }
}
