import type { SessionLog } from '@acp-kit/sdk';

/** The package behind `--history postgres://…`. */
const PACKAGE = '@acp-kit/history-postgres';

/** Whether `--history` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * Opens the session log in the PostgreSQL database at `url`. Several agent processes given the same
 * URL share its sessions: a client may attach to any of them, and each sees the others' updates live.
 */
export async function openPostgresHistory(url: string): Promise<SessionLog> {
  const postgres = (await import(PACKAGE)) as typeof import('@acp-kit/history-postgres');
  return postgres.PostgresSessionLog.open(url);
}
