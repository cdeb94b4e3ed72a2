import { LogHistoryStore } from '@acp-kit/sdk';
import { PostgresSessionLog, type PostgresSessionLogOptions } from './postgres-session-log.js';

/** Options of {@link PostgresHistoryStore.open}. */
export interface PostgresHistoryStoreOptions extends PostgresSessionLogOptions {}

/**
 * The message-level view (`LogHistoryStore` from `@acp-kit/sdk`) of a {@link PostgresSessionLog}:
 * connects to the log and folds its retained entries per message. Every write is an append to the
 * log, so its followers on every replica see it. Give its `log` to an agent.
 */
export class PostgresHistoryStore extends LogHistoryStore<PostgresSessionLog> {
  /** Connects to the database at `connectionString` (a `postgres://` URL) and migrates its schema. */
  static async open(
    connectionString: string,
    options: PostgresHistoryStoreOptions = {},
  ): Promise<PostgresHistoryStore> {
    return new PostgresHistoryStore(await PostgresSessionLog.open(connectionString, options));
  }

  /** The PostgreSQL schema holding the tables. */
  get schema(): string {
    return this.log.schema;
  }

  /** The database, as error messages name it (no password). */
  get location(): string {
    return this.log.location;
  }
}
