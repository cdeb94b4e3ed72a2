import type pg from 'pg';
import type { OpenedDatabase } from './connection.js';
import { translatePgError } from './pg-errors.js';
import type { OwnershipHost } from '@acp-kit/sdk/adapter';

/**
 * What the parts of a {@link PostgresSessionOwnership} share: its own pool on the database, the
 * schema's name, the channel replicas notify each other on, this replica's name, the agent it
 * serves ({@link OwnershipHost}, once bound), whether it is closed, and one way to run a statement
 * (with this package's errors).
 */
export class OwnershipDatabase {
  readonly #db: OpenedDatabase;
  /** The schema, quoted for SQL. */
  readonly s: string;
  /** The channel forwarded prompts, requests, cancels and their outcomes are announced on. */
  readonly channel: string;
  /** This replica's name in leases and prompt rows. */
  readonly replica: string;
  /** The agent whose sessions are owned, once bound. */
  host: OwnershipHost | undefined;
  #closed = false;

  constructor(db: OpenedDatabase, replica: string) {
    this.#db = db;
    this.s = db.s;
    this.channel = `acp_own_${db.schema}`;
    this.replica = replica;
  }

  /** The database, as error messages name it (no password). */
  get location(): string {
    return this.#db.location;
  }

  /** Settings for a connection of its own (the LISTEN connection). */
  get clientConfig(): pg.ClientConfig {
    return this.#db.clientConfig;
  }

  /** The client class for a connection of its own (it follows a multi-host string's writable host). */
  get Client(): typeof pg.Client {
    return this.#db.Client;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Marks the ownership closed; false if it was already. */
  markClosed(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }

  checkOpen(): void {
    if (this.#closed) throw new Error('the session ownership is closed');
  }

  /** Runs a statement on the pool; a failure is a history store error saying what it was `doing`. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
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

  /** Announces `payload` to every replica on {@link channel}. */
  async notify(doing: string, payload: string): Promise<void> {
    await this.query(doing, 'SELECT pg_notify($1, $2)', [this.channel, payload]);
  }

  /** Closes the pool. */
  async end(): Promise<void> {
    await this.#db.pool.end();
  }
}
