import type { SessionLog } from '@acp-kit/sdk';
import { type OpenedDatabase, openDatabase, type PostgresConnectionOptions } from './connection.js';
import { FencedSessionLog } from './fenced-session-log.js';
import { LeaseKeeper } from './lease-keeper.js';
import { OwedIdles } from './owed-idles.js';
import { OwnershipDatabase } from './ownership-database.js';
import { OwnershipListener } from './ownership-listener.js';
import type { PostgresSessionLog } from './postgres-session-log.js';
import { PromptForwarding } from './prompt-forwarding.js';
import { ReplicaCounters, type ReplicaHealth } from './replica-health.js';
import { RequestForwarding } from './request-forwarding.js';
import { PostgresSessionLeases, type SessionLease } from './session-leases.js';
import { SessionNotOwnedError } from './session-not-owned.js';
import type { DatabaseConnectionStatus } from './writable-host.js';
import {
  type ForwardedAnswer,
  type ForwardedRequest,
  type NewLogEntry,
  type OwnershipHost,
  type PromptRoute,
  type SessionOwnership,
  randomMessageId,
} from '@acp-kit/sdk/adapter';

/** Options of {@link PostgresSessionOwnership.open}. */
export interface PostgresSessionOwnershipOptions extends Omit<PostgresConnectionOptions, 'schema'> {
  /** This replica's name in the leases (default: random). Must differ between live replicas. */
  readonly replica?: string;
  /**
   * Lease time in ms (default 5000): how long after an owner stops renewing (it was killed, hung,
   * or lost the database) another replica may take its sessions over. Renewed every third of it.
   */
  readonly leaseMs?: number;
  /**
   * How often a replica checks the owners of the busy sessions it serves and of the prompts it
   * forwarded (default a quarter of the lease time).
   */
  readonly checkEveryMs?: number;
  /**
   * When leases are renewed: `'timer'` (the default) every third of the lease time, or `'manual'`:
   * only when {@link PostgresSessionOwnership.renewNow} is called (tests that pause a replica
   * deterministically, or an application driving renewals from its own scheduler).
   */
  readonly renewals?: 'timer' | 'manual';
}

type SessionId = string;
type ContentBlock = Parameters<SessionOwnership['route']>[1][number];

/**
 * Session ownership for agent replicas on one PostgreSQL database (the agent's
 * {@link SessionOwnership}): a session's turns run on exactly one replica at a time, the holder of
 * its lease ({@link PostgresSessionLeases}). It is made of five parts, one file each:
 *
 * - **Owning** ({@link LeaseKeeper}). A replica owns the sessions it creates, and takes a session
 *   whose lease is free or lapsed when a prompt for it arrives. It renews all its leases in one
 *   statement every third of the lease time, and writes to an owned session only fenced by its
 *   lease ({@link log}).
 * - **Forwarding prompts** ({@link PromptForwarding}). A prompt for a session owned elsewhere
 *   becomes a row in `log_prompts` and a `NOTIFY`; the owner takes the row (once: `pending` →
 *   `taken`), runs it through its agent's `onPrompt`, records the message ID right before
 *   inserting it, and writes the receipt (or the error) back with another `NOTIFY`. The receiving
 *   replica answers its client only then, once that client was handed the inserted message's
 *   report. `session/cancel` travels the same way.
 * - **Forwarding requests** ({@link RequestForwarding}): `tool_call/cancel`, `terminal/cancel` and
 *   `session/close` for a session owned elsewhere, a `NOTIFY` answered by another.
 * - **Owed idles** ({@link OwedIdles}): a turn-ending idle the database missed (it could not be
 *   reached) is written as soon as it can be, so no turn stays open.
 * - **Listening** ({@link OwnershipListener}): the `LISTEN` connection the notifications arrive
 *   on, set up again when lost.
 *
 * **Failover.** A replica checks the owners of the busy sessions it serves and of the prompts it
 * forwarded every `checkEveryMs` (a session is busy while its turn runs or its `background` list
 * is not empty); when a lease has lapsed it takes the session over (a new epoch: the old owner's
 * writes are refused from then on), ends the interrupted turn `idle` with stop reason `error` and
 * the background work it left with a final status saying so (see `endInterruptedTurn`), and
 * settles the prompts the old owner left: one never taken is run here; one taken and inserted
 * (its message ID is claimed in the log) gets its receipt; one taken and not inserted is rejected
 * (-32603), since the old owner can no longer insert it. A prompt whose client was attached to the
 * killed replica lost its response with it: that client knows only that the outcome is unknown
 * (the RFD's lost-response rule); replay shows whether it was inserted.
 */
export class PostgresSessionOwnership implements SessionOwnership {
  readonly #db: OwnershipDatabase;
  readonly #leases: PostgresSessionLeases;
  readonly #fenced: FencedSessionLog;
  readonly #counters = new ReplicaCounters();
  readonly #keeper: LeaseKeeper;
  readonly #prompts: PromptForwarding;
  readonly #requests: RequestForwarding;
  readonly #owed: OwedIdles;
  readonly #listener: OwnershipListener;
  /** This replica's name in leases and prompt rows. */
  readonly replica: string;

  private constructor(
    db: OpenedDatabase,
    leases: PostgresSessionLeases,
    log: PostgresSessionLog,
    options: PostgresSessionOwnershipOptions,
  ) {
    this.replica = options.replica ?? `replica_${randomMessageId().slice(4)}`;
    this.#db = new OwnershipDatabase(db, this.replica);
    this.#leases = leases;
    const leaseMs = options.leaseMs ?? 5000;
    const checkEveryMs = options.checkEveryMs ?? Math.max(10, Math.floor(leaseMs / 4));
    this.#keeper = new LeaseKeeper(this.#db, leases, log, this.#counters, {
      leaseMs,
      checkEveryMs,
      manualRenewals: options.renewals === 'manual',
      settleLeftBehind: (sessionId, lease) => this.#prompts.adopt(sessionId, lease),
    });
    this.#prompts = new PromptForwarding(this.#db, this.#keeper, log, checkEveryMs);
    this.#requests = new RequestForwarding(this.#db, this.#keeper, leaseMs, checkEveryMs);
    this.#owed = new OwedIdles(this.#db, this.#keeper, log);
    this.#listener = new OwnershipListener(this.#db, this.#counters, {
      prompt: (id, sessionId) => this.#prompts.offered(id, sessionId),
      done: (id) => this.#prompts.settled(id),
      withdraw: (id) => this.#prompts.withdrawn(id),
      cancel: (sessionId) => this.#prompts.cancelled(sessionId),
      request: (text) => this.#requests.requested(text),
      answer: (text) => this.#requests.answered(text),
      resumed: () => void this.#prompts.adoptAll(),
    });
    this.#fenced = new FencedSessionLog(log, {
      leaseFor: (sessionId, entries) => this.#leaseFor(sessionId, entries),
      failed: (sessionId, entries, lease, error) => {
        if (error instanceof SessionNotOwnedError) this.#keeper.lose(lease);
        this.#owed.failed(sessionId, entries, error);
      },
    });
  }

  /**
   * Opens ownership over `log`'s sessions (same database and schema, own connections) and starts
   * listening for forwarded prompts. Give the agent {@link log} as its history and this object as
   * its `ownership`.
   */
  static async open(
    log: PostgresSessionLog,
    connectionString: string,
    options: PostgresSessionOwnershipOptions = {},
  ): Promise<PostgresSessionOwnership> {
    const connection = { ...options, schema: log.schema, maxConnections: options.maxConnections ?? 4 };
    const db = await openDatabase(connectionString, connection);
    let leases: PostgresSessionLeases | undefined;
    try {
      leases = await PostgresSessionLeases.open(connectionString, { ...connection, maxConnections: 3 });
      const ownership = new PostgresSessionOwnership(db, leases, log, options);
      await ownership.#listener.listen();
      ownership.#keeper.start();
      return ownership;
    } catch (error) {
      await leases?.close().catch(() => undefined);
      await db.pool.end().catch(() => undefined);
      throw error;
    }
  }

  /** The session log to give the agent: appends to owned sessions are fenced by their lease. */
  get log(): SessionLog {
    return this.#fenced;
  }

  /** The lease this replica holds on a session, if it owns it. */
  leaseOf(sessionId: SessionId): SessionLease | undefined {
    return this.#keeper.leaseOf(sessionId);
  }

  bind(host: OwnershipHost): void {
    this.#db.host = host;
  }

  async created(sessionId: SessionId): Promise<void> {
    await this.#keeper.claim(sessionId);
  }

  route(sessionId: SessionId, content: readonly ContentBlock[], signal: AbortSignal): Promise<PromptRoute> {
    return this.#prompts.route(sessionId, content, signal);
  }

  cancel(sessionId: SessionId): Promise<boolean> {
    return this.#prompts.cancel(sessionId);
  }

  /**
   * Has the session's owner carry out `tool_call/cancel`, `terminal/cancel` or `session/close`:
   * a `NOTIFY` the owner answers with another. Undefined when the session is owned here or is free
   * (then it is taken here: a takeover ends a turn left running). The request is sent again every
   * `checkEveryMs` until answered (the owner answers a repeated one once); if the owner neither
   * answers nor loses its lease within twice the lease time, the answer is -32603.
   */
  forward(sessionId: SessionId, request: ForwardedRequest): Promise<ForwardedAnswer | undefined> {
    return this.#requests.forward(sessionId, request);
  }

  /**
   * Renews every lease this replica holds, in one statement. A lease the database no longer has at
   * its epoch was lost (it lapsed and another replica took the session): from then on this replica
   * writes nothing to that session, and its turn there is cancelled. A failure to reach the
   * database is thrown (the leases are kept: they may still be valid once it is back).
   */
  renewNow(): Promise<void> {
    return this.#keeper.renewNow();
  }

  /**
   * What this replica reports to an operator: the log's database (host, whether it can write),
   * the sessions it owns, lease renewal lag and LISTEN reconnects (the log's and this one's).
   */
  health(log: {
    connectionStatus(): DatabaseConnectionStatus & { listenReconnects: number };
  }): ReplicaHealth {
    const status = log.connectionStatus();
    const owned = this.#keeper.ownedCount;
    return {
      ...status,
      ownedSessions: owned,
      leaseRenewLagMs: this.#counters.renewLag(this.#keeper.renewEveryMs, owned),
      listenReconnects: status.listenReconnects + this.#counters.listenReconnects,
    };
  }

  /** Releases every lease held (other replicas can take the sessions at once) and disconnects. */
  async close(): Promise<void> {
    if (!this.#db.markClosed()) return;
    this.#keeper.stop();
    this.#owed.clear();
    this.#prompts.close();
    this.#requests.close();
    await this.#keeper.releaseAll();
    await this.#listener.close();
    await this.#leases.close().catch(() => undefined);
    await this.#db.end().catch(() => undefined);
  }

  /** The lease an append is fenced by; an idle owed to the session is written first. */
  async #leaseFor(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SessionLease> {
    await this.#owed.before(sessionId, entries);
    return this.#keeper.leaseFor(sessionId);
  }
}
