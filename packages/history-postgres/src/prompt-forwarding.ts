import { asForwardedError, INTERNAL } from './forwarded-error.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { OwnershipDatabase } from './ownership-database.js';
import type { PostgresSessionLog } from './postgres-session-log.js';
import type { SessionLease } from './session-leases.js';
import type { ForwardedError, ForwardedReceipt, PromptRoute, SessionOwnership } from '@acp-kit/sdk/adapter';

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

/**
 * Prompts (and `session/cancel`) for a session owned by another replica. The prompt becomes a row
 * in `log_prompts` and a `NOTIFY`; the owner takes the row (once: `pending` → `taken`), runs it
 * through its agent's `onPrompt`, records the message ID right before inserting it, and writes
 * the receipt (or the error) back with another `NOTIFY`. The receiving replica answers its client
 * only then. A replica that takes a session over settles the prompts its previous owner left
 * ({@link adopt}); one waiting for an owner that stopped renewing takes the session over itself.
 */
export class PromptForwarding {
  readonly #db: OwnershipDatabase;
  readonly #keeper: LeaseKeeper;
  readonly #log: PostgresSessionLog;
  readonly #checkEveryMs: number;
  /** Forwarded prompts this replica waits for, by row ID: wake the waiter. */
  readonly #waiting = new Map<string, () => void>();
  /** Forwarded prompts running here, by row ID: abort when their client withdraws them. */
  readonly #running = new Map<string, AbortController>();

  constructor(db: OwnershipDatabase, keeper: LeaseKeeper, log: PostgresSessionLog, checkEveryMs: number) {
    this.#db = db;
    this.#keeper = keeper;
    this.#log = log;
    this.#checkEveryMs = checkEveryMs;
  }

  /** Runs a prompt here if the session is owned here or free; else forwards it to its owner and waits. */
  async route(
    sessionId: SessionId,
    content: readonly ContentBlock[],
    signal: AbortSignal,
  ): Promise<PromptRoute> {
    if (this.#keeper.owns(sessionId) || (await this.#keeper.claim(sessionId))) return { to: 'here' };
    const { rows } = await this.#db.query<{ id: string }>(
      'forward a prompt in',
      `WITH row AS (
         INSERT INTO ${this.#db.s}.log_prompts (session_id, origin, content) VALUES ($1, $2, $3) RETURNING id
       )
       SELECT id, pg_notify($4, 'prompt ' || id || ' ' || $1) FROM row`,
      [sessionId, this.#db.replica, JSON.stringify(content), this.#db.channel],
    );
    return this.#await(rows[0]!.id, sessionId, signal);
  }

  /** Forwards `session/cancel` to the session's owner; false when this replica owns the session. */
  async cancel(sessionId: SessionId): Promise<boolean> {
    if (this.#keeper.owns(sessionId)) return false;
    // Prompts still waiting for the owner start their turn cancelled; the owner cancels the rest.
    await this.#db.query(
      'forward a cancel in',
      `WITH marked AS (
         UPDATE ${this.#db.s}.log_prompts SET cancelled = true WHERE session_id = $1 AND state = 'pending'
       )
       SELECT pg_notify($2, 'cancel ' || $1) WHERE octet_length($1) <= 7000`,
      [sessionId, this.#db.channel],
    );
    return true;
  }

  /** A prompt was forwarded (`prompt <row> <session>`): only the session's owner takes it. */
  offered(id: string, sessionId: SessionId): void {
    if (this.#keeper.owns(sessionId)) void this.#run(id);
  }

  /** A forwarded prompt was settled: wake the replica waiting for it. */
  settled(id: string): void {
    this.#waiting.get(id)?.();
  }

  /** The client withdrew a forwarded prompt running here: abort it. */
  withdrawn(id: string): void {
    this.#running.get(id)?.abort();
  }

  /** `session/cancel` reached another replica: the owner cancels the session's turn. */
  cancelled(sessionId: SessionId): void {
    if (this.#keeper.owns(sessionId)) void this.#db.host?.cancelForwarded(sessionId).catch(() => undefined);
  }

  /** Looks at every open prompt for the sessions owned here (notifications may have been missed). */
  async adoptAll(): Promise<void> {
    for (const lease of this.#keeper.held()) await this.adopt(lease.sessionId, lease).catch(() => undefined);
  }

  /** Settles the prompts forwarded to the session's previous owners and still open. */
  async adopt(sessionId: SessionId, lease: SessionLease): Promise<void> {
    const { rows } = await this.#db.query<PromptRow>(
      'read forwarded prompts in',
      `SELECT * FROM ${this.#db.s}.log_prompts WHERE session_id = $1 AND state IN ('pending', 'taken')`,
      [sessionId],
    );
    for (const row of rows) {
      if (row.state === 'pending') {
        void this.#run(row.id);
        continue;
      }
      if (row.taken_by === this.#db.replica && Number(row.taken_epoch) === lease.epoch) continue;
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

  /** Aborts the prompts running here and wakes the waiters (the ownership is closing). */
  close(): void {
    for (const controller of this.#running.values()) controller.abort();
    for (const wake of this.#waiting.values()) wake();
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
        if (this.#db.closed) return { to: 'owner', error: INTERNAL };
        // Nobody holds the session any more: take it over here (which settles this prompt).
        if (!this.#keeper.owns(sessionId) && (await this.#keeper.isFree(sessionId))) {
          await this.#keeper.claim(sessionId);
          continue;
        }
        await woken;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#waiting.delete(id);
      await this.#db
        .query(
          'delete a forwarded prompt in',
          `DELETE FROM ${this.#db.s}.log_prompts WHERE id = $1 AND state NOT IN ('pending', 'taken')`,
          [id],
        )
        .catch(() => undefined);
    }
  }

  /** The submitting client withdrew a forwarded prompt: drop it if still waiting, else tell the owner. */
  async #withdraw(id: string): Promise<void> {
    const error: ForwardedError = { code: -32800, message: 'The prompt was cancelled before insertion.' };
    await this.#db.query(
      'withdraw a forwarded prompt in',
      `WITH dropped AS (
         UPDATE ${this.#db.s}.log_prompts SET state = 'withdrawn', error = $2 WHERE id = $1 AND state = 'pending'
         RETURNING id
       )
       SELECT pg_notify($3, 'withdraw ' || $1) WHERE NOT EXISTS (SELECT 1 FROM dropped)`,
      [id, JSON.stringify(error), this.#db.channel],
    );
  }

  /** Takes a forwarded prompt (once) and runs it here, as the session's owner; writes the outcome back. */
  async #run(id: string): Promise<void> {
    const host = this.#db.host;
    if (host === undefined || this.#db.closed || this.#running.has(id)) return;
    const { rows } = await this.#db
      .query<{ session_id: string; content: string; cancelled: boolean }>(
        'take a forwarded prompt in',
        `UPDATE ${this.#db.s}.log_prompts p SET state = 'taken', taken_by = $2, taken_epoch = l.epoch
         FROM ${this.#db.s}.log_leases l
         WHERE p.id = $1 AND p.state = 'pending' AND l.session_id = p.session_id AND l.owner = $2
           AND l.expires_at > clock_timestamp()
         RETURNING p.session_id, p.content, p.cancelled`,
        [id, this.#db.replica],
      )
      .catch(() => ({ rows: [] }));
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
          await this.#db.query(
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
    await this.#db.query(
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
        this.#db.channel,
      ],
    );
  }

  async #row(id: string): Promise<PromptRow | undefined> {
    const { rows } = await this.#db.query<PromptRow>(
      'read a forwarded prompt in',
      `SELECT * FROM ${this.#db.s}.log_prompts WHERE id = $1`,
      [id],
    );
    return rows[0];
  }
}
