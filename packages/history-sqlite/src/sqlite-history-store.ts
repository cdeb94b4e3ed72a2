import { LogHistoryStore } from '@acp-kit/sdk';
import { SqliteSessionLog, type SqliteSessionLogOptions } from './sqlite-session-log.js';

/** Options of {@link SqliteHistoryStore.open}. */
export interface SqliteHistoryStoreOptions extends SqliteSessionLogOptions {}

/**
 * The message-level view (`LogHistoryStore` from `@acp-kit/sdk`) of a {@link SqliteSessionLog}:
 * opens the log at a path and folds its retained entries per message. It adds no tables of its
 * own. Give its `log` to an agent.
 */
export class SqliteHistoryStore extends LogHistoryStore<SqliteSessionLog> {
  /** The database file. */
  get path(): string {
    return this.log.path;
  }

  /** Opens (creating if needed) the database at `path`, migrating older files. */
  static open(path: string, options: SqliteHistoryStoreOptions = {}): SqliteHistoryStore {
    return new SqliteHistoryStore(SqliteSessionLog.open(path, options));
  }
}
