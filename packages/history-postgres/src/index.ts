export type { PostgresConnectionOptions } from './connection.js';
export { PostgresHistoryStore, type PostgresHistoryStoreOptions } from './postgres-history-store.js';
export {
  DEFAULT_WRITE_BEHIND,
  PostgresSessionLog,
  type PostgresSessionLogOptions,
} from './postgres-session-log.js';
export {
  type AcquireResult,
  type HeldLease,
  type HoldOptions,
  PostgresSessionLeases,
  type SessionLease,
} from './session-leases.js';
export { FencedSessionLog, type SessionFence } from './fenced-session-log.js';
export { type NotOwnedReason, SessionNotOwnedError } from './session-not-owned.js';
export {
  PostgresSessionOwnership,
  type PostgresSessionOwnershipOptions,
} from './session-ownership.js';
export { endInterruptedTurn, type InterruptedStopReason } from './takeover.js';
export { SCHEMA_VERSION } from './schema-version.js';
export type { DatabaseConnectionStatus } from './writable-host.js';
export type { ReplicaHealth } from './replica-health.js';
