/**
 * The benchmarks measure our code compiled, as users run it: run through bench/all.ts,
 * `@acp-kit/sdk` resolves to this package's dist/ (see tsconfig.bench.json). This check refuses a
 * dist older than the sources, so a stale build is never measured.
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

/** Throws unless dist/ was built after the last change under src/. */
export function assertCompiledSdkIsFresh(): void {
  const source = newest(join(ROOT, 'src'));
  let built = 0;
  try {
    built = newest(join(ROOT, 'dist'));
  } catch {
    // No dist at all: reported below.
  }
  if (built < source) {
    throw new Error(
      'packages/sdk/dist is older than src/: run `npm run build -w @acp-kit/sdk` first (this benchmark measures the compiled package)',
    );
  }
}
