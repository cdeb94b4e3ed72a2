import { HistoryStoreError, type HistoryStoreErrorCode } from '@acp-kit/sdk';

/** Maps a PostgreSQL SQLSTATE or a Node.js socket error code to a history store error code. */
function codeFor(code: string): HistoryStoreErrorCode {
  // insufficient_privilege, read_only_sql_transaction
  if (code === '42501' || code === '25006') return 'read_only';
  // lock_not_available, deadlock_detected
  if (code === '55P03' || code === '40P01') return 'locked';
  // data_corrupted, index_corrupted
  if (code === 'XX001' || code === 'XX002') return 'corrupt';
  // character_not_in_repertoire (a NUL in a string), untranslatable_character
  if (code === '22021' || code === '22P05') return 'invalid_argument';
  return 'io';
}

const HINTS: Partial<Record<HistoryStoreErrorCode, string>> = {
  locked: 'a lock could not be taken',
  read_only: 'it cannot be written',
  corrupt: 'the server reports damaged data',
  invalid_argument: 'a string cannot be stored (PostgreSQL text holds no NUL characters)',
  io: 'PostgreSQL failed',
};

/**
 * Turns anything thrown by `pg` (a server error with a SQLSTATE, or a socket error) into a
 * {@link HistoryStoreError} naming the database; history store errors pass through unchanged.
 */
export function translatePgError(
  error: unknown,
  location: string,
  doing: string,
  details: { sessionId?: string } = {},
): HistoryStoreError {
  if (error instanceof HistoryStoreError) return error;
  const raw =
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
      ? (error as { code: string }).code
      : 'UNKNOWN';
  const code = codeFor(raw);
  const reason = error instanceof Error ? error.message : String(error);
  return new HistoryStoreError(code, `${doing} ${location}: ${HINTS[code]} (${raw}: ${reason})`, {
    path: location,
    cause: error,
    ...(code === 'invalid_argument' ? { pointer: '' } : {}),
    ...details,
  });
}

/** The connection URL without its password, for error messages. */
export function describeConnection(connectionString: string, schema: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    return `${url.toString()} (schema ${schema})`;
  } catch {
    return `PostgreSQL (schema ${schema})`;
  }
}
