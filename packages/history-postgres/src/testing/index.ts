export {
  findPostgresBindir,
  startThrowawayPostgres,
  type ThrowawayPostgres,
  type ThrowawayPostgresOptions,
} from './throwaway-server.js';
export { type PairServer, type ReplicationPair, startReplicationPair } from './replication-pair.js';
export { hasPgBouncer, type PgBouncer, startPgBouncer } from './pgbouncer.js';
