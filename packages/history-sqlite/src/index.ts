export { SCHEMA_VERSION } from './schema.js';
export { SqliteHistoryStore, type SqliteHistoryStoreOptions } from './sqlite-history-store.js';
