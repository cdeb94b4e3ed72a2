import { HistoryStoreError, type HistoryStoreErrorCode } from '@acp-kit/sdk';

/** Maps a SQLite result code (better-sqlite3's `error.code`) to a history store error code. */
function codeFor(sqliteCode: string): HistoryStoreErrorCode {
  if (sqliteCode.startsWith('SQLITE_BUSY') || sqliteCode.startsWith('SQLITE_LOCKED')) return 'locked';
  if (
    sqliteCode.startsWith('SQLITE_READONLY') ||
    sqliteCode === 'SQLITE_PERM' ||
    sqliteCode === 'SQLITE_AUTH'
  ) {
    return 'read_only';
  }
  if (sqliteCode.startsWith('SQLITE_CORRUPT') || sqliteCode === 'SQLITE_NOTADB') return 'corrupt';
  return 'io';
}

const HINTS: Partial<Record<HistoryStoreErrorCode, string>> = {
  locked: 'another connection holds a lock on it',
  read_only: 'it cannot be written',
  corrupt: 'it is damaged or is not a SQLite database',
  io: 'SQLite failed',
};

/**
 * Turns anything thrown by better-sqlite3 into a {@link HistoryStoreError} that names the file;
 * history store errors pass through unchanged.
 */
export function translateSqliteError(error: unknown, path: string, doing: string): HistoryStoreError {
  if (error instanceof HistoryStoreError) return error;
  const sqliteCode =
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
      ? (error as { code: string }).code
      : 'UNKNOWN';
  const code = codeFor(sqliteCode);
  const reason = error instanceof Error ? error.message : String(error);
  return new HistoryStoreError(code, `${doing} ${path}: ${HINTS[code]} (${sqliteCode}: ${reason})`, {
    path,
    cause: error,
  });
}
