import type { OwnershipDatabase } from './ownership-database.js';
import type { PostgresSessionLog } from './postgres-session-log.js';
import type { ReplicaCounters } from './replica-health.js';
import type { PostgresSessionLeases, SessionLease } from './session-leases.js';
import { SessionNotOwnedError } from './session-not-owned.js';
import { endInterruptedTurn } from './takeover.js';

type SessionId = string;

/** How a {@link LeaseKeeper} keeps its leases. */
export interface LeaseKeeping {
  /** Lease time in ms: renewed every third of it. */
  readonly leaseMs: number;
  /** How often the owners of the busy sessions served here are checked. */
  readonly checkEveryMs: number;
  /** Renewals only through {@link LeaseKeeper.renewNow}, no timer. */
  readonly manualRenewals: boolean;
  /**
   * Settles what the session's previous owners left (the prompts forwarded to them), right after
   * this replica took the session: part of taking it.
   */
  readonly settleLeftBehind: (sessionId: SessionId, lease: SessionLease) => Promise<void>;
}

/**
 * The leases one replica holds ({@link PostgresSessionLeases}): which sessions it owns, taking a
 * session (once at a time per session) when its lease is free or lapsed, ending the turn its
 * previous owner left running, renewing every lease in one statement every third of the lease
 * time, giving up a lease found lost, and taking over the busy sessions served here whose owner
 * stopped renewing.
 */
export class LeaseKeeper {
  readonly #db: OwnershipDatabase;
  readonly #leases: PostgresSessionLeases;
  readonly #log: PostgresSessionLog;
  readonly #counters: ReplicaCounters;
  readonly #keeping: LeaseKeeping;
  readonly #owned = new Map<SessionId, SessionLease>();
  /** Sessions whose lease this replica lost: it writes nothing to them until it takes one again. */
  readonly #lost = new Set<SessionId>();
  readonly #claiming = new Map<SessionId, Promise<boolean>>();
  #renewTimer: NodeJS.Timeout | undefined;
  #checkTimer: NodeJS.Timeout | undefined;

  constructor(
    db: OwnershipDatabase,
    leases: PostgresSessionLeases,
    log: PostgresSessionLog,
    counters: ReplicaCounters,
    keeping: LeaseKeeping,
  ) {
    this.#db = db;
    this.#leases = leases;
    this.#log = log;
    this.#counters = counters;
    this.#keeping = keeping;
  }

  /** Whether this replica owns the session. */
  owns(sessionId: SessionId): boolean {
    return this.#owned.has(sessionId);
  }

  /** The lease this replica holds on a session, if it owns it. */
  leaseOf(sessionId: SessionId): SessionLease | undefined {
    return this.#owned.get(sessionId);
  }

  /** Every lease held. */
  held(): SessionLease[] {
    return [...this.#owned.values()];
  }

  /** How many sessions this replica owns. */
  get ownedCount(): number {
    return this.#owned.size;
  }

  /** The renewal interval: a third of the lease time. */
  get renewEveryMs(): number {
    return Math.max(10, Math.floor(this.#keeping.leaseMs / 3));
  }

  /** Whether nobody holds the session's lease now (free or lapsed). */
  async isFree(sessionId: SessionId): Promise<boolean> {
    return (await this.#leases.holder(sessionId)) === undefined;
  }

  /**
   * Takes the session if its lease is free, lapsed or already ours; after taking it from someone
   * else (or finding it unowned), ends a turn left running and settles the prompts left waiting.
   * True if this replica owns the session now.
   */
  claim(sessionId: SessionId): Promise<boolean> {
    if (this.#owned.has(sessionId)) return Promise.resolve(true);
    let claiming = this.#claiming.get(sessionId);
    if (claiming === undefined) {
      claiming = this.#takeOver(sessionId).finally(() => this.#claiming.delete(sessionId));
      this.#claiming.set(sessionId, claiming);
    }
    return claiming;
  }

  async #takeOver(sessionId: SessionId): Promise<boolean> {
    this.#db.checkOpen();
    const result = await this.#leases.acquire(sessionId, this.#db.replica, this.#keeping.leaseMs);
    if (!result.acquired) return false;
    this.#owned.set(sessionId, result.lease);
    this.#lost.delete(sessionId);
    try {
      // A turn and background work the previous owner left running end now, fenced by the new epoch.
      await endInterruptedTurn(this.#log, sessionId, result.lease, 'error');
      await this.#keeping.settleLeftBehind(sessionId, result.lease);
    } catch (error) {
      // Taken, but what the previous owner left could not be settled (the database went away
      // again). Kept, the session would count as settled here and its turn would stay open for
      // good: it is given up instead, so the next claim (a check of busy sessions, a prompt, an
      // owed idle, here or on another replica) takes it again and ends that turn then.
      if (this.#owned.get(sessionId) === result.lease) {
        this.#owned.delete(sessionId);
        const { owner, epoch } = result.lease;
        await this.#leases.release(sessionId, owner, epoch).catch(() => undefined);
      }
      throw error;
    }
    return true;
  }

  /**
   * The lease to fence an append with: the one held, or — for a session this replica never held or
   * gave up — the one it takes now if the session is free (as a prompt arriving here would). A
   * session whose lease was lost here, or that another replica holds, is refused.
   */
  async leaseFor(sessionId: SessionId): Promise<SessionLease> {
    const held = this.#owned.get(sessionId);
    if (held !== undefined) return held;
    if (this.#lost.has(sessionId)) throw new SessionNotOwnedError(sessionId, 'lost', this.#db.replica);
    const taken = (await this.claim(sessionId)) ? this.#owned.get(sessionId) : undefined;
    if (taken === undefined) throw new SessionNotOwnedError(sessionId, 'held_elsewhere', this.#db.replica);
    return taken;
  }

  /**
   * Renews every lease this replica holds, in one statement. A lease the database no longer has at
   * its epoch was lost (it lapsed and another replica took the session): from then on this replica
   * writes nothing to that session, and its turn there is cancelled. A failure to reach the
   * database is thrown (the leases are kept: they may still be valid once it is back).
   */
  async renewNow(): Promise<void> {
    this.#db.checkOpen();
    const held = [...this.#owned.values()];
    const renewed = await this.#leases.renewAll(this.#db.replica, held, this.#keeping.leaseMs);
    this.#counters.renewed();
    const kept = new Set(renewed.map((lease) => `${lease.sessionId}\u0000${lease.epoch}`));
    for (const lease of held) {
      // Lost (taken over after a missed renewal): writes to it are refused from now on.
      if (!kept.has(`${lease.sessionId}\u0000${lease.epoch}`)) this.lose(lease);
    }
    for (const lease of renewed) {
      if (this.#owned.get(lease.sessionId)?.epoch === lease.epoch) this.#owned.set(lease.sessionId, lease);
    }
  }

  /**
   * The lease was lost (taken over after a missed renewal, or a fenced append was refused): writes
   * to the session are refused from now on, and the turn running here is cancelled (it can report
   * nothing more; the replica that took the session over ended it for every client).
   */
  lose(lease: SessionLease): void {
    if (this.#owned.get(lease.sessionId)?.epoch !== lease.epoch) return;
    this.#owned.delete(lease.sessionId);
    this.#lost.add(lease.sessionId);
    void this.#db.host?.cancelForwarded(lease.sessionId).catch(() => undefined);
  }

  /** Starts renewing (unless renewals are manual) and checking the owners of busy sessions. */
  start(): void {
    const renewEvery = this.renewEveryMs;
    const renew = async (): Promise<void> => {
      if (this.#db.closed) return;
      const startedAt = Date.now();
      try {
        await this.renewNow();
      } catch {
        // The database is unreachable: fenced writes fail meanwhile; try again at the next tick.
      }
      // Counted from the start of this renewal: a slow round trip does not push the next one later.
      if (!this.#db.closed)
        this.#renewTimer = setTimeout(renew, Math.max(0, renewEvery - (Date.now() - startedAt))).unref();
    };
    if (!this.#keeping.manualRenewals) this.#renewTimer = setTimeout(renew, renewEvery).unref();
    const check = async (): Promise<void> => {
      if (this.#db.closed) return;
      await this.#checkBusySessions().catch(() => undefined);
      if (!this.#db.closed) this.#checkTimer = setTimeout(check, this.#keeping.checkEveryMs).unref();
    };
    this.#checkTimer = setTimeout(check, this.#keeping.checkEveryMs).unref();
  }

  /** Stops renewing and checking. */
  stop(): void {
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#checkTimer);
  }

  /** Releases every lease held, so other replicas can take the sessions at once. */
  async releaseAll(): Promise<void> {
    const owned = [...this.#owned.values()];
    this.#owned.clear();
    for (const lease of owned) {
      await this.#leases.release(lease.sessionId, lease.owner, lease.epoch).catch(() => undefined);
    }
  }

  /**
   * Takes over the busy sessions served here whose owner stopped renewing its lease: a turn runs,
   * or background work is listed (it would otherwise stay listed forever; the takeover ends it).
   */
  async #checkBusySessions(): Promise<void> {
    const busy: SessionId[] = [];
    for (const [sessionId, session] of this.#db.host?.sessions ?? []) {
      const working = session.activity !== 'idle' || (session.reportedBackground?.length ?? 0) > 0;
      if (working && !this.#owned.has(sessionId)) busy.push(sessionId);
    }
    if (busy.length === 0) return;
    const { rows } = await this.#db.query<{ session_id: string }>(
      'read leases in',
      `SELECT session_id FROM ${this.#db.s}.log_leases
       WHERE session_id = ANY($1::text[]) AND expires_at > clock_timestamp()`,
      [busy],
    );
    const held = new Set(rows.map((row) => row.session_id));
    for (const sessionId of busy) if (!held.has(sessionId)) await this.claim(sessionId).catch(() => false);
  }
}
