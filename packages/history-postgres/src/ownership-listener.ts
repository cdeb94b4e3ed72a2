import type pg from 'pg';
import type { OwnershipDatabase } from './ownership-database.js';
import { translatePgError } from './pg-errors.js';
import type { ReplicaCounters } from './replica-health.js';

/** A lost LISTEN connection is set up again after this long, and again after each failure. */
const RELISTEN_DELAY_MS = 200;

/** What the replicas tell each other on the ownership channel, one handler per kind. */
export interface OwnershipNotices {
  /** `prompt <row> <session>`: a prompt was forwarded to the session's owner. */
  prompt(id: string, sessionId: string): void;
  /** `done <row>`: a forwarded prompt was settled. */
  done(id: string): void;
  /** `withdraw <row>`: the client withdrew a forwarded prompt. */
  withdraw(id: string): void;
  /** `cancel <session>`: `session/cancel` reached a replica that does not own the session. */
  cancel(sessionId: string): void;
  /** `request <json>`: a request forwarded to the session's owner. */
  request(text: string): void;
  /** `answer <id> <json>`: the owner's answer to a forwarded request. */
  answer(text: string): void;
  /** The connection was lost and set up again: notifications may have been missed meanwhile. */
  resumed(): void;
}

/**
 * The replica's `LISTEN` connection on the ownership channel (its own connection beside the
 * pool, so it also works through a session-pooling PgBouncer): hands each notification to its
 * handler and, when the connection is lost, sets it up again (counted for the health report) and
 * says so, since notifications may have been missed meanwhile.
 */
export class OwnershipListener {
  readonly #db: OwnershipDatabase;
  readonly #counters: ReplicaCounters;
  readonly #notices: OwnershipNotices;
  #client: pg.Client | undefined;

  constructor(db: OwnershipDatabase, counters: ReplicaCounters, notices: OwnershipNotices) {
    this.#db = db;
    this.#counters = counters;
    this.#notices = notices;
  }

  /** Connects and listens; fails (with this package's error) when the database cannot be reached. */
  async listen(): Promise<void> {
    const client = new this.#db.Client(this.#db.clientConfig);
    client.on('notification', (message) => {
      if (message.channel === this.#db.channel && message.payload !== undefined)
        this.#notified(message.payload);
    });
    const lost = (): void => {
      if (this.#client !== client || this.#db.closed) return;
      this.#client = undefined;
      this.#counters.listenReconnected();
      const retry = (): void => {
        if (this.#db.closed) return;
        this.listen().then(
          () => {
            if (!this.#db.closed) this.#notices.resumed();
          },
          () => setTimeout(retry, RELISTEN_DELAY_MS).unref(),
        );
      };
      setTimeout(retry, RELISTEN_DELAY_MS).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#db.channel}"`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw translatePgError(error, this.#db.location, 'cannot listen for forwarded prompts in');
    }
    if (this.#db.closed) {
      // Closed while this connection was being set up (a reconnect racing `close()`): nothing
      // would ever end it, so end it here rather than keep it.
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  /** Disconnects (without setting up again). */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #notified(payload: string): void {
    const space = payload.indexOf(' ');
    const kind = payload.slice(0, space);
    const rest = payload.slice(space + 1);
    if (kind === 'prompt') {
      const [id, ...session] = rest.split(' ');
      this.#notices.prompt(id!, session.join(' '));
    } else if (kind === 'done') this.#notices.done(rest);
    else if (kind === 'request') this.#notices.request(rest);
    else if (kind === 'answer') this.#notices.answer(rest);
    else if (kind === 'withdraw') this.#notices.withdraw(rest);
    else if (kind === 'cancel') this.#notices.cancel(rest);
  }
}
