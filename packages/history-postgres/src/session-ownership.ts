import type { SessionLog } from '@acp-kit/sdk';
import type {
  ForwardedAnswer,
  ForwardedError,
  ForwardedRequest,
  LogEntry,
  NewLogEntry,
  ForwardedReceipt,
  OwnershipHost,
  PromptRoute,
  SessionOwnership,
} from '@acp-kit/sdk/adapter';
import { HistoryStoreError } from '@acp-kit/sdk';
import { randomMessageId } from '@acp-kit/sdk/adapter';
import type pg from 'pg';
import { ReplicaCounters, type ReplicaHealth } from './replica-health.js';
import type { DatabaseConnectionStatus } from './writable-host.js';
import { type OpenedDatabase, openDatabase, type PostgresConnectionOptions } from './connection.js';
import { FencedSessionLog } from './fenced-session-log.js';
import { translatePgError } from './pg-errors.js';
import { SessionNotOwnedError } from './session-not-owned.js';
import type { PostgresSessionLog } from './postgres-session-log.js';
import { PostgresSessionLeases, type SessionLease } from './session-leases.js';
import { endInterruptedTurn } from './takeover.js';

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

interface PromptRow {
  id: string;
  session_id: string;
  state: 'pending' | 'taken' | 'inserted' | 'rejected' | 'withdrawn';
  taken_by: string | null;
  taken_epoch: string | null;
  message_id: string | null;
  position: string | null;
  error: string | null;
}

/** A turn-ending idle still to be written (see {@link PostgresSessionOwnership}, "Database outages"). */
interface OwedIdle {
  readonly update: LogEntry['update'];
  attempts: number;
  timer: NodeJS.Timeout | undefined;
  /** The write in flight, if any. */
  writing: Promise<void> | undefined;
}

/** The first retry of an owed idle after this long, doubling up to {@link OWED_RETRY_MAX_MS}. */
const OWED_RETRY_MS = 100;
const OWED_RETRY_MAX_MS = 2000;

const INTERNAL: ForwardedError = { code: -32603, message: 'Internal error' };
const RELISTEN_DELAY_MS = 200;

/**
 * Session ownership for agent replicas on one PostgreSQL database (the agent's
 * {@link SessionOwnership}): a session's turns run on exactly one replica at a time, the holder of
 * its lease ({@link PostgresSessionLeases}).
 *
 * - **Owning.** A replica owns the sessions it creates, and takes a session whose lease is free or
 *   lapsed when a prompt for it arrives. It renews all its leases in one statement every third of
 *   the lease time, and writes to an owned session only fenced by its lease ({@link log}).
 * - **Forwarding.** A prompt for a session owned elsewhere becomes a row in `log_prompts` and a
 *   `NOTIFY`; the owner takes the row (once: `pending` → `taken`), runs it through its agent's
 *   `onPrompt`, records the message ID right before inserting it, and writes the receipt (or the
 *   error) back with another `NOTIFY`. The receiving replica answers its client only then, once
 *   that client was handed the inserted message's report. `session/cancel` travels the same way.
 * - **Failover.** A replica checks the owners of the busy sessions it serves and of the prompts it
 *   forwarded every `checkEveryMs` (a session is busy while its turn runs or its `background` list
 *   is not empty); when a lease has lapsed it takes the session over (a new epoch: the old owner's
 *   writes are refused from then on), ends the interrupted turn `idle` with stop reason `error` and
 *   the background work it left with a final status saying so (see `endInterruptedTurn`), and settles the prompts the old owner left: one never taken is run here; one
 *   taken and inserted (its message ID is claimed in the log) gets its receipt; one taken and not
 *   inserted is rejected (-32603), since the old owner can no longer insert it. A prompt whose
 *   client was attached to the killed replica lost its response with it: that client knows only
 *   that the outcome is unknown (the RFD's lost-response rule); replay shows whether it was inserted.
 */
export class PostgresSessionOwnership implements SessionOwnership {
  readonly #db: OpenedDatabase;
  readonly #leases: PostgresSessionLeases;
  readonly #log: PostgresSessionLog;
  readonly #fenced: FencedSessionLog;
  readonly #channel: string;
  readonly #leaseMs: number;
  readonly #checkEveryMs: number;
  readonly #manualRenewals: boolean;
  /** This replica's name in leases and prompt rows. */
  readonly replica: string;
  readonly #owned = new Map<SessionId, SessionLease>();
  /** Sessions whose lease this replica lost: it writes nothing to them until it takes one again. */
  readonly #lost = new Set<SessionId>();
  /**
   * Turn-ending idles whose append failed while the database could not be reached, by session:
   * written (once) as soon as it can be, before anything else this replica appends to the session.
   */
  readonly #owed = new Map<SessionId, OwedIdle>();
  readonly #claiming = new Map<SessionId, Promise<boolean>>();
  /** Forwarded prompts this replica waits for, by row ID: wake the waiter. */
  readonly #waiting = new Map<string, () => void>();
  /** Forwarded requests this replica waits for an answer to, by request ID. */
  readonly #asked = new Map<string, (answer: ForwardedAnswer) => void>();
  /** Forwarded requests carried out here, by request ID: a repeated request gets the same answer. */
  readonly #answers = new Map<string, Promise<ForwardedAnswer>>();
  /** Forwarded prompts running here, by row ID: abort when their client withdraws them. */
  readonly #running = new Map<string, AbortController>();
  #host: OwnershipHost | undefined;
  #listener: pg.Client | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  readonly #counters = new ReplicaCounters();
  #checkTimer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(
    db: OpenedDatabase,
    leases: PostgresSessionLeases,
    log: PostgresSessionLog,
    options: PostgresSessionOwnershipOptions,
  ) {
    this.#db = db;
    this.#leases = leases;
    this.#log = log;
    this.#channel = `acp_own_${db.schema}`;
    this.#leaseMs = options.leaseMs ?? 5000;
    this.#checkEveryMs = options.checkEveryMs ?? Math.max(10, Math.floor(this.#leaseMs / 4));
    this.#manualRenewals = options.renewals === 'manual';
    this.replica = options.replica ?? `replica_${randomMessageId().slice(4)}`;
    this.#fenced = new FencedSessionLog(log, {
      leaseFor: (sessionId, entries) => this.#leaseFor(sessionId, entries),
      failed: (sessionId, entries, lease, error) => this.#failed(sessionId, entries, lease, error),
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
      await ownership.#listen();
      ownership.#start();
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
    return this.#owned.get(sessionId);
  }

  bind(host: OwnershipHost): void {
    this.#host = host;
  }

  async created(sessionId: SessionId): Promise<void> {
    await this.#claim(sessionId);
  }

  async route(
    sessionId: SessionId,
    content: readonly ContentBlock[],
    signal: AbortSignal,
  ): Promise<PromptRoute> {
    if (this.#owned.has(sessionId) || (await this.#claim(sessionId))) return { to: 'here' };
    const { rows } = await this.#query<{ id: string }>(
      'forward a prompt in',
      `WITH row AS (
         INSERT INTO ${this.#db.s}.log_prompts (session_id, origin, content) VALUES ($1, $2, $3) RETURNING id
       )
       SELECT id, pg_notify($4, 'prompt ' || id || ' ' || $1) FROM row`,
      [sessionId, this.replica, JSON.stringify(content), this.#channel],
    );
    return this.#await(rows[0]!.id, sessionId, signal);
  }

  async cancel(sessionId: SessionId): Promise<boolean> {
    if (this.#owned.has(sessionId)) return false;
    // Prompts still waiting for the owner start their turn cancelled; the owner cancels the rest.
    await this.#query(
      'forward a cancel in',
      `WITH marked AS (
         UPDATE ${this.#db.s}.log_prompts SET cancelled = true WHERE session_id = $1 AND state = 'pending'
       )
       SELECT pg_notify($2, 'cancel ' || $1) WHERE octet_length($1) <= 7000`,
      [sessionId, this.#channel],
    );
    return true;
  }

  /**
   * Has the session's owner carry out `tool_call/cancel`, `terminal/cancel` or `session/close`:
   * a `NOTIFY` the owner answers with another. Undefined when the session is owned here or is free
   * (then it is taken here: a takeover ends a turn left running). The request is sent again every
   * `checkEveryMs` until answered (the owner answers a repeated one once); if the owner neither
   * answers nor loses its lease within twice the lease time, the answer is -32603.
   */
  async forward(sessionId: SessionId, request: ForwardedRequest): Promise<ForwardedAnswer | undefined> {
    if (this.#owned.has(sessionId) || (await this.#claim(sessionId))) return undefined;
    const id = randomMessageId().slice(4);
    const payload = `request ${JSON.stringify({ id, sessionId, request })}`;
    if (Buffer.byteLength(payload) > 7900) {
      return {
        error: {
          code: -32603,
          message: 'the request is too long to forward to the replica running this session',
        },
      };
    }
    const answered = new Promise<ForwardedAnswer>((resolve) => this.#asked.set(id, resolve));
    const deadline = Date.now() + 2 * this.#leaseMs;
    try {
      for (;;) {
        this.#checkOpen();
        await this.#query('forward a request in', 'SELECT pg_notify($1, $2)', [this.#channel, payload]);
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), this.#checkEveryMs);
        });
        const answer = await Promise.race([answered, waited]);
        clearTimeout(timer);
        if (answer !== undefined) return answer;
        // Nobody holds the session any more: it is taken here, and handled here.
        if (!this.#owned.has(sessionId) && (await this.#leases.holder(sessionId)) === undefined) {
          if (await this.#claim(sessionId)) return undefined;
        }
        if (Date.now() > deadline) {
          return { error: { code: -32603, message: 'the replica running this session did not answer' } };
        }
      }
    } finally {
      this.#asked.delete(id);
    }
  }

  /** Carries out a request another replica forwarded, if this replica owns the session; answers it. */
  #answer(text: string): void {
    let message: { id: string; sessionId: string; request: ForwardedRequest };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    const { id, sessionId, request } = message;
    const host = this.#host;
    if (host === undefined || !this.#owned.has(sessionId)) return;
    let answer = this.#answers.get(id);
    if (answer === undefined) {
      answer = host.runForwardedRequest(sessionId, request).then(
        (): ForwardedAnswer => ({ ok: true }),
        (error: unknown): ForwardedAnswer => ({ error: asForwardedError(error) }),
      );
      this.#answers.set(id, answer);
      // Kept a while, for a repeated request (its sender missed the answer).
      const forget = (): void => void this.#answers.delete(id);
      answer.then(() => setTimeout(forget, 4 * this.#leaseMs).unref());
    }
    void answer.then((value) =>
      this.#query('answer a forwarded request in', 'SELECT pg_notify($1, $2)', [
        this.#channel,
        `answer ${id} ${JSON.stringify(value)}`,
      ]).catch(() => undefined),
    );
  }

  /** Releases every lease held (other replicas can take the sessions at once) and disconnects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#checkTimer);
    for (const [sessionId, owed] of [...this.#owed]) this.#forget(sessionId, owed);
    for (const controller of this.#running.values()) controller.abort();
    for (const wake of this.#waiting.values()) wake();
    for (const asked of this.#asked.values()) asked({ error: INTERNAL });
    const owned = [...this.#owned.values()];
    this.#owned.clear();
    for (const lease of owned) {
      await this.#leases.release(lease.sessionId, lease.owner, lease.epoch).catch(() => undefined);
    }
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.#leases.close().catch(() => undefined);
    await this.#db.pool.end().catch(() => undefined);
  }

  /**
   * Takes the session if its lease is free, lapsed or already ours; after taking it from someone
   * else (or finding it unowned), ends a turn left running and settles the prompts left waiting.
   * True if this replica owns the session now.
   */
  #claim(sessionId: SessionId): Promise<boolean> {
    if (this.#owned.has(sessionId)) return Promise.resolve(true);
    let claiming = this.#claiming.get(sessionId);
    if (claiming === undefined) {
      claiming = this.#takeOver(sessionId).finally(() => this.#claiming.delete(sessionId));
      this.#claiming.set(sessionId, claiming);
    }
    return claiming;
  }

  async #takeOver(sessionId: SessionId): Promise<boolean> {
    this.#checkOpen();
    const result = await this.#leases.acquire(sessionId, this.replica, this.#leaseMs);
    if (!result.acquired) return false;
    this.#owned.set(sessionId, result.lease);
    this.#lost.delete(sessionId);
    try {
      // A turn and background work the previous owner left running end now, fenced by the new epoch.
      await endInterruptedTurn(this.#log, sessionId, result.lease, 'error');
      await this.#adopt(sessionId, result.lease);
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

  /** Settles the prompts forwarded to the session's previous owners and still open. */
  async #adopt(sessionId: SessionId, lease: SessionLease): Promise<void> {
    const { rows } = await this.#query<PromptRow>(
      'read forwarded prompts in',
      `SELECT * FROM ${this.#db.s}.log_prompts WHERE session_id = $1 AND state IN ('pending', 'taken')`,
      [sessionId],
    );
    for (const row of rows) {
      if (row.state === 'pending') {
        void this.#run(row.id);
        continue;
      }
      if (row.taken_by === this.replica && Number(row.taken_epoch) === lease.epoch) continue;
      // Taken by an owner that lost the session: its fenced writes can no longer land, so whether
      // the message is claimed now is final.
      const inserted =
        row.message_id !== null &&
        (await this.#log.isClaimed(sessionId, { kind: 'user_message', messageId: row.message_id }));
      if (inserted) {
        const { lastSeq } = await this.#log.read(sessionId, { afterSeq: 0, limit: 1 });
        await this.#settle(row.id, 'taken', { messageId: row.message_id!, position: lastSeq });
      } else {
        await this.#settle(row.id, 'taken', {
          code: -32603,
          message: 'the agent replica running this prompt stopped before inserting it',
        });
      }
    }
  }

  /** Waits for the outcome of a forwarded prompt; takes the session over if its owner dies. */
  async #await(id: string, sessionId: SessionId, signal: AbortSignal): Promise<PromptRoute> {
    let withdrawn = false;
    const onAbort = (): void => this.#waiting.get(id)?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const woken = new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#checkEveryMs);
          this.#waiting.set(id, () => {
            clearTimeout(timer);
            resolve();
          });
        });
        const row = await this.#row(id);
        if (row === undefined) return { to: 'owner', error: INTERNAL };
        if (row.state === 'inserted') {
          return { to: 'owner', receipt: { messageId: row.message_id!, position: Number(row.position) } };
        }
        if (row.state === 'rejected' || row.state === 'withdrawn') {
          return {
            to: 'owner',
            error: row.error === null ? INTERNAL : (JSON.parse(row.error) as ForwardedError),
          };
        }
        if (signal.aborted && !withdrawn) {
          withdrawn = true;
          await this.#withdraw(id);
          continue;
        }
        if (this.#closed) return { to: 'owner', error: INTERNAL };
        // Nobody holds the session any more: take it over here (which settles this prompt).
        if (!this.#owned.has(sessionId) && (await this.#leases.holder(sessionId)) === undefined) {
          await this.#claim(sessionId);
          continue;
        }
        await woken;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#waiting.delete(id);
      await this.#query(
        'delete a forwarded prompt in',
        `DELETE FROM ${this.#db.s}.log_prompts WHERE id = $1 AND state NOT IN ('pending', 'taken')`,
        [id],
      ).catch(() => undefined);
    }
  }

  /** The submitting client withdrew a forwarded prompt: drop it if still waiting, else tell the owner. */
  async #withdraw(id: string): Promise<void> {
    const error: ForwardedError = { code: -32800, message: 'The prompt was cancelled before insertion.' };
    await this.#query(
      'withdraw a forwarded prompt in',
      `WITH dropped AS (
         UPDATE ${this.#db.s}.log_prompts SET state = 'withdrawn', error = $2 WHERE id = $1 AND state = 'pending'
         RETURNING id
       )
       SELECT pg_notify($3, 'withdraw ' || $1) WHERE NOT EXISTS (SELECT 1 FROM dropped)`,
      [id, JSON.stringify(error), this.#channel],
    );
  }

  /** Takes a forwarded prompt (once) and runs it here, as the session's owner; writes the outcome back. */
  async #run(id: string): Promise<void> {
    const host = this.#host;
    if (host === undefined || this.#closed || this.#running.has(id)) return;
    const { rows } = await this.#query<{ session_id: string; content: string; cancelled: boolean }>(
      'take a forwarded prompt in',
      `UPDATE ${this.#db.s}.log_prompts p SET state = 'taken', taken_by = $2, taken_epoch = l.epoch
       FROM ${this.#db.s}.log_leases l
       WHERE p.id = $1 AND p.state = 'pending' AND l.session_id = p.session_id AND l.owner = $2
         AND l.expires_at > clock_timestamp()
       RETURNING p.session_id, p.content, p.cancelled`,
      [id, this.replica],
    ).catch(() => ({ rows: [] }));
    const row = rows[0];
    if (row === undefined) return; // not pending, or not ours
    const controller = new AbortController();
    this.#running.set(id, controller);
    try {
      const receipt = await host.runForwardedPrompt({
        sessionId: row.session_id,
        content: JSON.parse(row.content) as ContentBlock[],
        signal: controller.signal,
        cancelled: row.cancelled,
        inserting: async (messageId) => {
          await this.#query(
            'record a forwarded prompt in',
            `UPDATE ${this.#db.s}.log_prompts SET message_id = $2 WHERE id = $1`,
            [id, messageId],
          );
        },
      });
      await this.#settle(id, 'taken', receipt);
    } catch (error) {
      await this.#settle(id, 'taken', asForwardedError(error)).catch(() => undefined);
    } finally {
      this.#running.delete(id);
    }
  }

  /** Writes a forwarded prompt's outcome and wakes the replica waiting for it. */
  async #settle(id: string, from: 'taken', outcome: ForwardedReceipt | ForwardedError): Promise<void> {
    const inserted = 'messageId' in outcome;
    await this.#query(
      'settle a forwarded prompt in',
      `WITH done AS (
         UPDATE ${this.#db.s}.log_prompts
         SET state = $3, message_id = coalesce($4, message_id), position = $5, error = $6
         WHERE id = $1 AND state = $2 RETURNING id
       )
       SELECT pg_notify($7, 'done ' || id) FROM done`,
      [
        id,
        from,
        inserted ? 'inserted' : 'rejected',
        inserted ? outcome.messageId : null,
        inserted ? outcome.position : null,
        inserted ? null : JSON.stringify(outcome),
        this.#channel,
      ],
    );
  }

  async #row(id: string): Promise<PromptRow | undefined> {
    const { rows } = await this.#query<PromptRow>(
      'read a forwarded prompt in',
      `SELECT * FROM ${this.#db.s}.log_prompts WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /**
   * Renews every lease this replica holds, in one statement. A lease the database no longer has at
   * its epoch was lost (it lapsed and another replica took the session): from then on this replica
   * writes nothing to that session, and its turn there is cancelled. A failure to reach the
   * database is thrown (the leases are kept: they may still be valid once it is back).
   */
  /**
   * What this replica reports to an operator: the log's database (host, whether it can write),
   * the sessions it owns, lease renewal lag and LISTEN reconnects (the log's and this one's).
   */
  health(log: {
    connectionStatus(): DatabaseConnectionStatus & { listenReconnects: number };
  }): ReplicaHealth {
    const status = log.connectionStatus();
    return {
      ...status,
      ownedSessions: this.#owned.size,
      leaseRenewLagMs: this.#counters.renewLag(Math.max(10, Math.floor(this.#leaseMs / 3)), this.#owned.size),
      listenReconnects: status.listenReconnects + this.#counters.listenReconnects,
    };
  }

  async renewNow(): Promise<void> {
    this.#checkOpen();
    const held = [...this.#owned.values()];
    const renewed = await this.#leases.renewAll(this.replica, held, this.#leaseMs);
    this.#counters.renewed();
    const kept = new Set(renewed.map((lease) => `${lease.sessionId}\u0000${lease.epoch}`));
    for (const lease of held) {
      // Lost (taken over after a missed renewal): writes to it are refused from now on.
      if (!kept.has(`${lease.sessionId}\u0000${lease.epoch}`)) this.#lose(lease);
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
  #lose(lease: SessionLease): void {
    if (this.#owned.get(lease.sessionId)?.epoch !== lease.epoch) return;
    this.#owned.delete(lease.sessionId);
    this.#lost.add(lease.sessionId);
    void this.#host?.cancelForwarded(lease.sessionId).catch(() => undefined);
  }

  /**
   * The lease to fence an append with: the one held, or — for a session this replica never held or
   * gave up — the one it takes now if the session is free (as a prompt arriving here would). A
   * session whose lease was lost here, or that another replica holds, is refused. An idle owed to
   * the session is written first (or dropped, when `entries` end the turn themselves).
   */
  async #leaseFor(sessionId: SessionId, entries: readonly NewLogEntry[]): Promise<SessionLease> {
    const owed = this.#owed.get(sessionId);
    if (owed !== undefined) {
      if (owed.writing === undefined && turnEnd(entries) !== undefined) this.#forget(sessionId, owed);
      else await this.#writeOwed(sessionId);
    }
    const held = this.#owned.get(sessionId);
    if (held !== undefined) return held;
    if (this.#lost.has(sessionId)) throw new SessionNotOwnedError(sessionId, 'lost', this.replica);
    const taken = (await this.#claim(sessionId)) ? this.#owned.get(sessionId) : undefined;
    if (taken === undefined) throw new SessionNotOwnedError(sessionId, 'held_elsewhere', this.replica);
    return taken;
  }

  /** A fenced append failed: a lost lease is given up; a turn-ending idle the database missed is owed. */
  #failed(sessionId: SessionId, entries: readonly NewLogEntry[], lease: SessionLease, error: unknown): void {
    if (error instanceof SessionNotOwnedError) this.#lose(lease);
    const update = turnEnd(entries);
    if (update === undefined || this.#closed || !mayPass(error)) return;
    const previous = this.#owed.get(sessionId);
    if (previous !== undefined) this.#forget(sessionId, previous);
    const owed: OwedIdle = { update, attempts: 0, timer: undefined, writing: undefined };
    this.#owed.set(sessionId, owed);
    this.#retryOwed(sessionId, owed);
  }

  #retryOwed(sessionId: SessionId, owed: OwedIdle): void {
    const delay = Math.min(OWED_RETRY_MAX_MS, OWED_RETRY_MS * 2 ** owed.attempts);
    owed.timer = setTimeout(() => {
      owed.timer = undefined;
      this.#writeOwed(sessionId).catch(() => undefined);
    }, delay).unref();
  }

  #forget(sessionId: SessionId, owed: OwedIdle): void {
    clearTimeout(owed.timer);
    if (this.#owed.get(sessionId) === owed) this.#owed.delete(sessionId);
  }

  /**
   * Writes the idle owed to a session, once: only if the log's last state is not idle already (the
   * failed append may have committed before its connection broke). With the lease lost meanwhile,
   * the session is taken over if it is free, which ends the turn the same way; if another replica
   * holds it, that replica ended it. Throws while the database still cannot be reached (and tries
   * again later).
   */
  #writeOwed(sessionId: SessionId): Promise<void> {
    const owed = this.#owed.get(sessionId);
    if (owed === undefined) return Promise.resolve();
    owed.writing ??= (async () => {
      try {
        const lease = this.#owned.get(sessionId);
        if (lease === undefined) {
          // A takeover (if the session is free) ends the turn if it is still open.
          await this.#claim(sessionId);
        } else {
          const last = await this.#log.lastState(sessionId);
          if ((last?.update as { state?: unknown } | undefined)?.state !== 'idle') {
            await this.#log.appendAsOwner(sessionId, [{ update: owed.update, retain: false }], lease);
          }
        }
        this.#forget(sessionId, owed);
      } catch (error) {
        if (error instanceof SessionNotOwnedError) {
          // Lapsed while the database was away: take the session back if nobody else did.
          const lease = this.#owned.get(sessionId);
          if (lease !== undefined) this.#lose(lease);
        } else if (!mayPass(error) || this.#closed) {
          this.#forget(sessionId, owed);
          throw error;
        }
        owed.attempts += 1;
        if (this.#owed.get(sessionId) === owed) this.#retryOwed(sessionId, owed);
        throw error;
      } finally {
        owed.writing = undefined;
      }
    })();
    return owed.writing;
  }

  #start(): void {
    const renewEvery = Math.max(10, Math.floor(this.#leaseMs / 3));
    const renew = async (): Promise<void> => {
      if (this.#closed) return;
      const startedAt = Date.now();
      try {
        await this.renewNow();
      } catch {
        // The database is unreachable: fenced writes fail meanwhile; try again at the next tick.
      }
      // Counted from the start of this renewal: a slow round trip does not push the next one later.
      if (!this.#closed)
        this.#renewTimer = setTimeout(renew, Math.max(0, renewEvery - (Date.now() - startedAt))).unref();
    };
    if (!this.#manualRenewals) this.#renewTimer = setTimeout(renew, renewEvery).unref();
    const check = async (): Promise<void> => {
      if (this.#closed) return;
      await this.#checkBusySessions().catch(() => undefined);
      if (!this.#closed) this.#checkTimer = setTimeout(check, this.#checkEveryMs).unref();
    };
    this.#checkTimer = setTimeout(check, this.#checkEveryMs).unref();
  }

  /**
   * Takes over the busy sessions served here whose owner stopped renewing its lease: a turn runs,
   * or background work is listed (it would otherwise stay listed forever; the takeover ends it).
   */
  async #checkBusySessions(): Promise<void> {
    const busy: SessionId[] = [];
    for (const [sessionId, session] of this.#host?.sessions ?? []) {
      const working = session.activity !== 'idle' || (session.reportedBackground?.length ?? 0) > 0;
      if (working && !this.#owned.has(sessionId)) busy.push(sessionId);
    }
    if (busy.length === 0) return;
    const { rows } = await this.#query<{ session_id: string }>(
      'read leases in',
      `SELECT session_id FROM ${this.#db.s}.log_leases
       WHERE session_id = ANY($1::text[]) AND expires_at > clock_timestamp()`,
      [busy],
    );
    const held = new Set(rows.map((row) => row.session_id));
    for (const sessionId of busy) if (!held.has(sessionId)) await this.#claim(sessionId).catch(() => false);
  }

  async #listen(): Promise<void> {
    const client = new this.#db.Client(this.#db.clientConfig);
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload !== undefined) this.#notified(message.payload);
    });
    const lost = (): void => {
      if (this.#listener !== client || this.#closed) return;
      this.#listener = undefined;
      this.#counters.listenReconnected();
      const retry = (): void => {
        if (this.#closed) return;
        this.#listen().then(
          // Notifications may have been missed meanwhile: look at every open prompt for our sessions.
          () => void this.#adoptAll(),
          () => setTimeout(retry, RELISTEN_DELAY_MS).unref(),
        );
      };
      setTimeout(retry, RELISTEN_DELAY_MS).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#channel}"`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw translatePgError(error, this.#db.location, 'cannot listen for forwarded prompts in');
    }
    this.#listener = client;
  }

  async #adoptAll(): Promise<void> {
    for (const lease of this.#owned.values())
      await this.#adopt(lease.sessionId, lease).catch(() => undefined);
  }

  #notified(payload: string): void {
    const space = payload.indexOf(' ');
    const kind = payload.slice(0, space);
    const rest = payload.slice(space + 1);
    if (kind === 'prompt') {
      // "prompt <row> <session>": only the session's owner takes it.
      const [id, ...session] = rest.split(' ');
      if (this.#owned.has(session.join(' '))) void this.#run(id!);
    } else if (kind === 'done') this.#waiting.get(rest)?.();
    else if (kind === 'request') this.#answer(rest);
    else if (kind === 'answer') {
      const space = rest.indexOf(' ');
      const asked = this.#asked.get(rest.slice(0, space));
      if (asked !== undefined) asked(JSON.parse(rest.slice(space + 1)) as ForwardedAnswer);
    } else if (kind === 'withdraw') this.#running.get(rest)?.abort();
    else if (kind === 'cancel' && this.#owned.has(rest)) {
      void this.#host?.cancelForwarded(rest).catch(() => undefined);
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('the session ownership is closed');
  }

  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    doing: string,
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.#db.pool.query<R>(text, values);
    } catch (error) {
      throw translatePgError(error, this.#db.location, `cannot ${doing}`);
    }
  }
}

/** An error as it travels between replicas: a JSON-RPC error's code, message and data, else -32603. */
function asForwardedError(error: unknown): ForwardedError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  return typeof e?.code === 'number' && typeof e.message === 'string'
    ? { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) }
    : INTERNAL;
}

/** The update of the last state in `entries` if it is `idle` (the turn's end), else undefined. */
function turnEnd(entries: readonly NewLogEntry[]): LogEntry['update'] | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const update = entries[i]!.update as { sessionUpdate: string; state?: unknown };
    if (update.sessionUpdate === 'state_update')
      return update.state === 'idle' ? entries[i]!.update : undefined;
  }
  return undefined;
}

/** Whether a failed append may succeed later: the database was unreachable, or lost the lease race. */
function mayPass(error: unknown): boolean {
  if (error instanceof SessionNotOwnedError) return true;
  return error instanceof HistoryStoreError && error.transient;
}
