import type { SessionLog } from '@acp-kit/sdk';

/** The optional package behind `--history`; everything else in the CLI runs without it. */
const PACKAGE = '@acp-kit/history-sqlite';

/**
 * Shown when a command needs the optional SQLite package (or its native module) and it is absent:
 * which package, and how to get it in words that work today (the packages are not on the npm
 * registry yet, so the first way is a tarball packed from a checkout).
 */
export function sqliteMissingMessage(needer: string): string {
  return (
    `${needer} needs the optional package ${PACKAGE} (SQLite through the native better-sqlite3 module), ` +
    'and it is not installed. Install it next to @acp-kit/cli: from a checkout of acp-kit, ' +
    '`npm run pack -- cli history-sqlite` prints the `npm install` lines of tarballs to run in your project ' +
    '(https://acp-kit.dev/getting-started/#install); once the packages are on the npm registry, ' +
    `\`npm install -D ${PACKAGE}\` will do.`
  );
}

/** Shown when `--history <file>` is used but the optional SQLite package is absent. */
export const SQLITE_MISSING_MESSAGE = sqliteMissingMessage('--history <file>');

function isMissingModule(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    (message.includes(PACKAGE) || message.includes('better-sqlite3'))
  );
}

/**
 * Loads the optional SQLite package, or throws {@link sqliteMissingMessage} for `needer` when it
 * (or its native module) is not installed.
 */
export async function loadSqlitePackage(needer: string): Promise<typeof import('@acp-kit/history-sqlite')> {
  try {
    return await import(PACKAGE);
  } catch (error) {
    if (isMissingModule(error)) throw new Error(sqliteMissingMessage(needer), { cause: error });
    throw error;
  }
}

/**
 * Opens the session log in a SQLite file. The SQLite package is loaded here, on first use, so
 * commands without `--history` never load (or need) a native module.
 */
export async function openSqliteHistory(path: string): Promise<SessionLog> {
  const sqlite = await loadSqlitePackage('--history <file>');
  return sqlite.SqliteSessionLog.open(path);
}
