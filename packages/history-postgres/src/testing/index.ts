export {
  findPostgresBindir,
  startThrowawayPostgres,
  type ThrowawayPostgres,
  type ThrowawayPostgresOptions,
} from './throwaway-server.js';
