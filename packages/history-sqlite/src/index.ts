export { SCHEMA_VERSION } from './schema-version.js';
export { SqliteHistoryStore, type SqliteHistoryStoreOptions } from './sqlite-history-store.js';
export { SqliteSessionLog, type SqliteSessionLogOptions } from './sqlite-session-log.js';
