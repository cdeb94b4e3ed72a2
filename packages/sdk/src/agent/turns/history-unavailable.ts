import { HistoryStoreError } from '../../history/errors.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

/**
 * The answer to a `session/prompt` that failed before its message was inserted. When the session
 * history cannot be written for now (its database is unreachable or read-only, as during a
 * failover), the client is told so, with `data.retryable: true`: nothing was inserted, and the same
 * prompt sent again once the database is back runs. Anything else stays an opaque internal error.
 */
export function promptFailure(error: unknown): RpcError {
  if (historyUnavailable(error)) {
    return new RpcError(
      ErrorCodes.InternalError,
      'The session history cannot be written right now (its database is unreachable or read-only); the prompt was not inserted: send it again.',
      { retryable: true, historyError: error.code },
    );
  }
  return new RpcError(ErrorCodes.InternalError, 'Internal error');
}

/** Whether `error` says the session history cannot be written for now (unreachable or read-only). */
export function historyUnavailable(error: unknown): error is HistoryStoreError {
  return error instanceof HistoryStoreError && (error.code === 'io' || error.code === 'read_only');
}
