/**
 * `npm run bench -w @acp-kit/sdk`: runs every benchmark of this package, one child process after
 * the other, against the compiled package. Each runs under `tsx` with `TSX_TSCONFIG_PATH` set to
 * tsconfig.bench.json, which has no `paths`: `@acp-kit/sdk` then resolves through the package's
 * exports map to dist/, the code users run, in the benchmark and in every agent or client process
 * it starts (they inherit the variable). With the development tsconfig, tsx would load src/ and
 * compile it with esbuild's `keepNames`, which gives every named closure property storage of its
 * own: about 18 KB more heap per idle remote connection, and slower closures. A dist older than
 * src/ is refused, so a stale build is never measured.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertCompiledSdkIsFresh } from './compiled-sdk.js';

const BENCHES = [
  'update-throughput.ts',
  'subscribe-snapshot.ts',
  'receipt-latency.ts',
  'slow-reader.ts',
  'resume-sqlite.ts',
  'remote-transports.ts',
  'background-flood.ts',
  'nes-document.ts',
];
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv.slice(2);

assertCompiledSdkIsFresh();
for (const bench of BENCHES) {
  if (only.length > 0 && !only.some((name) => bench.startsWith(name))) continue;
  const run = spawnSync(process.execPath, ['--import', 'tsx', `bench/${bench}`], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.bench.json' },
  });
  if (run.status !== 0) {
    console.error(`bench/${bench} failed (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}
