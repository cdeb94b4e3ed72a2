import type { SessionLog } from '@acp-kit/sdk';

/** The optional package behind `--history`; everything else in the CLI runs without it. */
const PACKAGE = '@acp-kit/history-sqlite';

/** Shown when `--history` is used but the optional SQLite package (or its native module) is absent. */
export const SQLITE_MISSING_MESSAGE =
  `--history needs the optional package ${PACKAGE} (SQLite through the native better-sqlite3 module), ` +
  `and it is not installed. Install it next to @acp-kit/cli: npm install ${PACKAGE}`;

function isMissingModule(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    (message.includes(PACKAGE) || message.includes('better-sqlite3'))
  );
}

/**
 * Opens the session log in a SQLite file. The SQLite package is loaded here, on first use, so
 * commands without `--history` never load (or need) a native module.
 */
export async function openSqliteHistory(path: string): Promise<SessionLog> {
  let sqlite: typeof import('@acp-kit/history-sqlite');
  try {
    sqlite = await import(PACKAGE);
  } catch (error) {
    if (isMissingModule(error)) throw new Error(SQLITE_MISSING_MESSAGE, { cause: error });
    throw error;
  }
  return sqlite.SqliteSessionLog.open(path);
}
