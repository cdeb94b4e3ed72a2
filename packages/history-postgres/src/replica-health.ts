import type { DatabaseConnectionStatus } from './writable-host.js';

/** What one replica reports to an operator: its database, whether it can write, its sessions. */
export interface ReplicaHealth extends DatabaseConnectionStatus {
  /** Sessions whose lease this replica holds (it runs their turns). */
  readonly ownedSessions: number;
  /**
   * How far lease renewal is behind its schedule, in ms: the time since the last successful
   * renewal beyond the renewal interval (a third of the lease time); 0 while on time. Past two
   * thirds of the lease time, other replicas take the sessions over.
   */
  readonly leaseRenewLagMs: number;
  /** How many times a LISTEN connection (live delivery, forwarded prompts) was lost and set up again. */
  readonly listenReconnects: number;
}

/** Tracks lease renewals and LISTEN reconnects for {@link ReplicaHealth}. */
export class ReplicaCounters {
  #lastRenewedAt = Date.now();
  #listenReconnects = 0;

  renewed(): void {
    this.#lastRenewedAt = Date.now();
  }

  listenReconnected(): void {
    this.#listenReconnects++;
  }

  get listenReconnects(): number {
    return this.#listenReconnects;
  }

  /** The renewal lag given the renewal interval; 0 when nothing is owned (nothing to renew). */
  renewLag(renewEveryMs: number, owned: number): number {
    if (owned === 0) return 0;
    return Math.max(0, Date.now() - this.#lastRenewedAt - renewEveryMs);
  }
}
