import { HistoryStoreError } from '@acp-kit/sdk';
import pg from 'pg';
import { SessionNotOwnedError } from './session-not-owned.js';

/**
 * Whether a failed write statement certainly wrote nothing: the server answered it with an error
 * of severity `ERROR`, so its transaction rolled back (PostgreSQL never reports `ERROR` for a
 * transaction that committed: a failure after the commit is `FATAL` or `PANIC`). That covers this
 * package's own refusals — a message claimed before, a lease lost, a session gone — and anything
 * else the statement ran into. A socket error, a connection that closed before the answer
 * arrived, or a `FATAL`/`PANIC` leaves the outcome unknown: the statement may have committed.
 */
export function statementRefused(error: unknown): boolean {
  if (error instanceof SessionNotOwnedError) return true;
  if (error instanceof HistoryStoreError) {
    const code = error.code;
    if (code === 'duplicate_message' || code === 'session_not_found' || code === 'invalid_argument')
      return true;
    error = error.cause;
  }
  return error instanceof pg.DatabaseError && error.severity === 'ERROR';
}
