/**
 * The benchmarks measure our code compiled, as users run it: run through bench/all.ts,
 * `@acp-kit/sdk` resolves to this package's dist/ (see tsconfig.bench.json). This check refuses a
 * dist older than the sources, so a stale build is never measured (and the same of the CLI's, for
 * the capacity benchmark's `acp-kit serve`).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function assertFresh(root: string, name: string): void {
  const source = newest(join(root, 'src'));
  let built = 0;
  try {
    built = newest(join(root, 'dist'));
  } catch {
    // No dist at all: reported below.
  }
  if (built < source) {
    throw new Error(
      `packages/${name}/dist is older than src/ (or missing): run \`npm run build -w @acp-kit/${name}\` first (this benchmark measures the compiled package)`,
    );
  }
}

/** Throws unless dist/ was built after the last change under src/. */
export function assertCompiledSdkIsFresh(): void {
  assertFresh(ROOT, 'sdk');
}

/** The same for the CLI, whose `serve` the capacity benchmark runs (a process, never an import). */
export function assertCompiledCliIsFresh(): void {
  assertFresh(join(ROOT, '..', 'cli'), 'cli');
}
