import { statSync } from 'node:fs';

/**
 * Warnings for a history file (or its `-wal`/`-shm` companion) that other local users can read.
 * New files are created owner-only; an older file keeps whatever mode it had.
 */
export function historyExposureWarnings(path: string): string[] {
  const warnings: string[] = [];
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) {
      warnings.push(
        `WARNING: ${file} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}); ` +
          `it holds conversations. Run: chmod 600 ${file}`,
      );
    }
  }
  return warnings;
}
