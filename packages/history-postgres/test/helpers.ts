import { inject } from 'vitest';
import { PostgresHistoryStore, type PostgresHistoryStoreOptions } from '../src/index.js';

/** URL of the test run's PostgreSQL server (see global-setup.ts). */
export const postgresUrl = (): string => inject('postgresUrl');

let counter = 0;

/** A schema name no other test (in this run or an earlier one on the same server) has used. */
export function freshSchema(prefix = 't'): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${++counter}`;
}

/** Opens a store in a fresh schema of the test server. */
export function openFresh(options: PostgresHistoryStoreOptions = {}): Promise<PostgresHistoryStore> {
  return PostgresHistoryStore.open(postgresUrl(), { schema: freshSchema(), maxConnections: 4, ...options });
}
