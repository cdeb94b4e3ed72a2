import { HistoryStoreError } from '@acp-kit/sdk';
import type pg from 'pg';
import type { OpenedDatabase } from './connection.js';
import type { DatabaseConnectionStatus } from './writable-host.js';
import { translatePgError } from './pg-errors.js';
import { RAISED } from './raised-sqlstates.js';
import { SessionNotOwnedError } from './session-not-owned.js';

/**
 * What the parts of a {@link PostgresSessionLog} share: the pool and the schema's names, the
 * log's identity in notifications, whether it is closed, and one way to run a statement (prepared
 * once per pooled connection, with this package's errors).
 */
export class LogDatabase {
  readonly #db: OpenedDatabase;
  /** Prepared statement name per statement text (each pooled connection prepares it once). */
  readonly #statements = new Map<string, string>();
  /** The schema, quoted for SQL. */
  readonly s: string;
  /** The channel appends and deletes are announced on. */
  readonly channel: string;
  /** Names this log in notifications, so it skips its own appends (it published them already). */
  readonly origin: string;
  #closed = false;
  /** Whether the last statement reached the database and could write (for a single-host string). */
  #lastWriteOk = true;
  #lastError: string | undefined;

  constructor(db: OpenedDatabase, origin: string) {
    this.#db = db;
    this.s = db.s;
    this.channel = `acp_log_${db.schema}`;
    this.origin = origin;
  }

  /** The PostgreSQL schema holding the tables. */
  get schema(): string {
    return this.#db.schema;
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

  get pool(): pg.Pool {
    return this.#db.pool;
  }

  /**
   * Which database connections go to and whether it accepts writes: from the host picker of a
   * multi-host connection string, else from the outcome of the last statement.
   */
  connectionStatus(): DatabaseConnectionStatus {
    const hosts = this.#db.hosts;
    if (hosts !== undefined) return hosts.status();
    return {
      host: this.location,
      writable: this.#lastWriteOk && !this.#closed,
      timeline: 0,
      hostChanges: 0,
      lastError: this.#lastError,
    };
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Marks the log closed: every later call fails with `closed`. */
  markClosed(): void {
    this.#closed = true;
  }

  checkOpen(): void {
    if (this.#closed) {
      throw new HistoryStoreError('closed', `the session log at ${this.location} is closed`, {
        path: this.location,
      });
    }
  }

  /** Runs one statement, turning this package's raised SQLSTATEs and driver errors into HistoryStoreErrors. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    doing: string,
    text: string,
    values: unknown[],
    sessionId?: string,
  ): Promise<pg.QueryResult<R>> {
    this.checkOpen();
    let name = this.#statements.get(text);
    if (name === undefined) {
      // Prepared once per pooled connection, then only bound and run: no parse or plan per call.
      name = `acp_log_${this.#statements.size + 1}`;
      this.#statements.set(text, name);
    }
    try {
      const result = await this.pool.query<R>({ name, text, values });
      this.#lastWriteOk = true;
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || code === '25006' || code.startsWith('08') || code.startsWith('57P')) {
        this.#lastWriteOk = false;
        this.#lastError = error instanceof Error ? error.message : String(error);
      }
      if (sessionId !== undefined) {
        if (code === RAISED.sessionNotFound) throw notFound(sessionId);
        if (code === RAISED.leaseLost) {
          throw new SessionNotOwnedError(sessionId, 'lost');
        }
        if (code === RAISED.duplicateMessage) {
          const messageId = (error as Error).message;
          const kind = (error as { detail?: string }).detail ?? 'message';
          throw new HistoryStoreError('duplicate_message', `${kind} "${messageId}" is already claimed`, {
            sessionId,
            messageId,
          });
        }
      }
      if (this.#closed) {
        throw new HistoryStoreError('closed', `the session log at ${this.location} is closed`, {
          path: this.location,
          cause: error,
        });
      }
      throw translatePgError(
        error,
        this.location,
        `cannot ${doing}`,
        sessionId === undefined ? {} : { sessionId },
      );
    }
  }
}

/** The `session_not_found` error of an unknown session. */
export function notFound(sessionId: string): HistoryStoreError {
  return new HistoryStoreError('session_not_found', `no session "${sessionId}"`, { sessionId });
}
