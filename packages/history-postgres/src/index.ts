export { PostgresHistoryStore, type PostgresHistoryStoreOptions } from './postgres-history-store.js';
export { SCHEMA_VERSION } from './schema-version.js';
