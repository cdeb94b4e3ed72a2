import { closeSync, openSync } from 'node:fs';

/**
 * Creates `path` as an empty file readable and writable by its owner only (0600), unless it
 * already exists. SQLite creates the `-wal` and `-shm` companions with the database file's mode,
 * so they end up owner-only too. In-memory and URI names are left alone; a failure here is left
 * for SQLite's own open to report.
 */
export function createOwnerOnly(path: string): void {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch {
    // Exists already (kept as it is) or cannot be created (SQLite says why, naming the path).
  }
}
