import { HistoryStoreError } from '@acp-kit/sdk';
import { historyValidation as check } from '@acp-kit/sdk/adapter';
import type pg from 'pg';
import { type OpenedDatabase, openDatabase, type PostgresConnectionOptions } from './connection.js';
import { translatePgError } from './pg-errors.js';

/** Who holds a session's lease, as the database sees it. */
export interface SessionLease {
  /** The session. */
  readonly sessionId: string;
  /** The holder (a replica's name). */
  readonly owner: string;
  /**
   * Fencing token: grows every time the lease changes hands. A holder that passes its epoch with a
   * write lets the database refuse a write from a holder that lost the lease without noticing.
   */
  readonly epoch: number;
  /** When the lease lapses unless renewed (ISO 8601, the database's clock). */
  readonly expiresAt: string;
}

/** The outcome of {@link PostgresSessionLeases.acquire}. */
export type AcquireResult =
  | { readonly acquired: true; readonly lease: SessionLease; readonly takenOver: boolean }
  | { readonly acquired: false; readonly holder: SessionLease };

/** Options of {@link PostgresSessionLeases.hold}. */
export interface HoldOptions {
  /** Lease time (ms): how long other replicas wait after this one stops renewing. */
  readonly ttlMs: number;
  /** Renew this often (default a third of `ttlMs`). */
  readonly renewEveryMs?: number;
  /** Called once if the lease is lost (taken over after a missed renewal, or the database failed). */
  readonly onLost?: (reason: unknown) => void;
}

/** A lease this process keeps renewing; see {@link PostgresSessionLeases.hold}. */
export interface HeldLease {
  /** The lease as last renewed. */
  readonly current: SessionLease;
  /** Stops renewing and gives the lease up (idempotent). */
  release(): Promise<void>;
}

interface LeaseRow {
  session_id: string;
  owner: string;
  epoch: string;
  expires_at: Date;
  mine?: boolean;
  took_over?: boolean;
}

/**
 * Session ownership for agent replicas, held in PostgreSQL with a lease: at most one replica runs a
 * session's foreground work at a time; when its holder stops renewing (it crashed, was killed, lost
 * the network), another replica can take the session over once the lease time has passed. Times are
 * the database's clock, so replicas' clocks need not agree. Each change of holder increments the
 * lease's `epoch`, a fencing token.
 *
 * Uses the same database and schema as {@link PostgresSessionLog} (its `log_leases` table).
 */
export class PostgresSessionLeases {
  readonly #db: OpenedDatabase;
  readonly #held = new Set<HeldLease>();
  #closed = false;

  private constructor(db: OpenedDatabase) {
    this.#db = db;
  }

  /** Connects to the database at `connectionString` and migrates its schema. */
  static async open(
    connectionString: string,
    options: PostgresConnectionOptions = {},
  ): Promise<PostgresSessionLeases> {
    return new PostgresSessionLeases(await openDatabase(connectionString, options));
  }

  /** The PostgreSQL schema holding the leases. */
  get schema(): string {
    return this.#db.schema;
  }

  /**
   * Takes the session's lease for `owner` for `ttlMs` if it is free, lapsed, or already `owner`'s
   * (then it is renewed, same epoch). Otherwise reports the current holder.
   */
  async acquire(sessionId: string, owner: string, ttlMs: number): Promise<AcquireResult> {
    checkArgs(sessionId, owner, ttlMs);
    const s = this.#db.s;
    const { rows } = await this.#query<LeaseRow>(
      'take a lease in',
      // A lease another replica holds is reported without touching its row: the upsert would lock
      // it even when it changes nothing, and a replica polling for a lease would then hold up the
      // holder's renewals and fenced appends whenever the poller is slow to commit.
      `WITH previous AS (
              SELECT owner, expires_at > clock_timestamp() AS live FROM ${s}.log_leases WHERE session_id = $1
            ),
            taken AS (
              INSERT INTO ${s}.log_leases AS l (session_id, owner, epoch, expires_at)
              SELECT $1, $2, 1, clock_timestamp() + make_interval(secs => $3 / 1000.0)
              WHERE NOT EXISTS (SELECT 1 FROM previous WHERE owner <> $2 AND live)
              ON CONFLICT (session_id) DO UPDATE SET
                owner = excluded.owner,
                epoch = CASE WHEN l.owner = excluded.owner THEN l.epoch ELSE l.epoch + 1 END,
                expires_at = excluded.expires_at
              WHERE l.owner = excluded.owner OR l.expires_at <= clock_timestamp()
              RETURNING l.*
            )
       SELECT t.*, true AS mine,
              EXISTS (SELECT 1 FROM previous p WHERE p.owner <> $2) AS took_over
       FROM taken t
       UNION ALL
       SELECT l.*, false AS mine, false AS took_over FROM ${s}.log_leases l
       WHERE l.session_id = $1 AND NOT EXISTS (SELECT 1 FROM taken)`,
      [sessionId, owner, ttlMs],
    );
    const row = rows[0];
    if (row === undefined) {
      // Taken and released by someone else between the two halves of the statement: try again.
      return this.acquire(sessionId, owner, ttlMs);
    }
    if (row.mine === true) return { acquired: true, lease: toLease(row), takenOver: row.took_over === true };
    return { acquired: false, holder: toLease(row) };
  }

  /**
   * Extends `owner`'s lease by `ttlMs` from now, if it still holds it at `epoch` (and it has not
   * lapsed and been taken). Returns the renewed lease, or undefined when it was lost.
   */
  async renew(
    sessionId: string,
    owner: string,
    epoch: number,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    checkArgs(sessionId, owner, ttlMs);
    const { rows } = await this.#query<LeaseRow>(
      'renew a lease in',
      `UPDATE ${this.#db.s}.log_leases
       SET expires_at = clock_timestamp() + make_interval(secs => $4 / 1000.0)
       WHERE session_id = $1 AND owner = $2 AND epoch = $3
       RETURNING *`,
      [sessionId, owner, epoch, ttlMs],
    );
    return rows[0] === undefined ? undefined : toLease(rows[0]);
  }

  /**
   * Renews many of `owner`'s leases in one statement (each at its epoch, if not lapsed and taken).
   * Returns the renewed leases; a lease missing from the result was lost.
   */
  async renewAll(
    owner: string,
    leases: readonly Pick<SessionLease, 'sessionId' | 'epoch'>[],
    ttlMs: number,
  ): Promise<SessionLease[]> {
    if (leases.length === 0) return [];
    checkArgs(leases[0]!.sessionId, owner, ttlMs);
    const { rows } = await this.#query<LeaseRow>(
      'renew leases in',
      // The rows are locked in session ID order (byte order), the order in which a write of
      // several sessions takes their leases, so a renewal and a write never wait on each other.
      `WITH mine AS (
         SELECT l.session_id FROM ${this.#db.s}.log_leases l
         JOIN unnest($2::text[], $3::bigint[]) AS h(session_id, epoch)
           ON l.session_id = h.session_id AND l.epoch = h.epoch AND l.owner = $1
         ORDER BY l.session_id COLLATE "C"
         FOR UPDATE OF l
       )
       UPDATE ${this.#db.s}.log_leases l
       SET expires_at = clock_timestamp() + make_interval(secs => $4 / 1000.0)
       FROM mine WHERE l.session_id = mine.session_id
       RETURNING l.*`,
      [owner, leases.map((lease) => lease.sessionId), leases.map((lease) => lease.epoch), ttlMs],
    );
    return rows.map(toLease);
  }

  /** Gives the lease up at once (if `owner` still holds it at `epoch`); true if it did. */
  async release(sessionId: string, owner: string, epoch: number): Promise<boolean> {
    // The row stays (with its epoch, so the next holder's epoch still grows); it just lapses now.
    const result = await this.#query(
      'release a lease in',
      `UPDATE ${this.#db.s}.log_leases SET expires_at = clock_timestamp()
       WHERE session_id = $1 AND owner = $2 AND epoch = $3`,
      [sessionId, owner, epoch],
    );
    return result.rowCount === 1;
  }

  /** The session's lease if it is held now (not lapsed), else undefined. */
  async holder(sessionId: string): Promise<SessionLease | undefined> {
    check.checkId(sessionId, '/sessionId');
    const { rows } = await this.#query<LeaseRow>(
      'read a lease in',
      `SELECT * FROM ${this.#db.s}.log_leases WHERE session_id = $1 AND expires_at > clock_timestamp()`,
      [sessionId],
    );
    return rows[0] === undefined ? undefined : toLease(rows[0]);
  }

  /**
   * Keeps a lease acquired with {@link acquire}: renews it every `renewEveryMs` and calls `onLost`
   * once if a renewal finds it gone (or fails for longer than the lease lasts).
   */
  hold(lease: SessionLease, options: HoldOptions): HeldLease {
    const every = options.renewEveryMs ?? Math.max(10, Math.floor(options.ttlMs / 3));
    let current = lease;
    let stopped = false;
    let lastRenewal = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const leases = this;
    const lost = (reason: unknown) => {
      if (stopped) return;
      stopped = true;
      this.#held.delete(held);
      options.onLost?.(reason);
    };
    const tick = async () => {
      if (stopped) return;
      const startedAt = Date.now();
      try {
        const renewed = await leases.renew(current.sessionId, current.owner, current.epoch, options.ttlMs);
        if (stopped) return;
        if (renewed === undefined) {
          lost(new Error(`the lease on session "${current.sessionId}" was taken over`));
          return;
        }
        current = renewed;
        lastRenewal = Date.now();
      } catch (error) {
        if (Date.now() - lastRenewal >= options.ttlMs) {
          lost(error);
          return;
        }
      }
      // Counted from the start of this renewal, so a slow round trip does not push the next one
      // later (the lease was extended from when this one reached the database).
      if (!stopped) timer = setTimeout(tick, Math.max(0, every - (Date.now() - startedAt)));
    };
    timer = setTimeout(tick, every);
    const held: HeldLease = {
      get current() {
        return current;
      },
      async release() {
        if (stopped) return;
        stopped = true;
        clearTimeout(timer);
        leases.#held.delete(held);
        if (!leases.#closed) await leases.release(current.sessionId, current.owner, current.epoch);
      },
    };
    this.#held.add(held);
    return held;
  }

  /** Releases every held lease and closes the connections. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    for (const held of [...this.#held]) await held.release().catch(() => undefined);
    this.#closed = true;
    await this.#db.pool.end();
  }

  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    doing: string,
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    if (this.#closed) {
      throw new HistoryStoreError('closed', `the session leases at ${this.#db.location} are closed`, {
        path: this.#db.location,
      });
    }
    try {
      return await this.#db.pool.query<R>(text, values);
    } catch (error) {
      throw translatePgError(error, this.#db.location, `cannot ${doing}`);
    }
  }
}

function checkArgs(sessionId: string, owner: string, ttlMs: number): void {
  check.checkId(sessionId, '/sessionId');
  check.checkId(owner, '/owner');
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new HistoryStoreError('invalid_argument', '/ttlMs: expected a positive number of milliseconds', {
      pointer: '/ttlMs',
    });
  }
}

function toLease(row: LeaseRow): SessionLease {
  return Object.freeze({
    sessionId: row.session_id,
    owner: row.owner,
    epoch: Number(row.epoch),
    expiresAt: row.expires_at.toISOString(),
  });
}
