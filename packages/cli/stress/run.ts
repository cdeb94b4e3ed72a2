/**
 * `npm run stress` for @acp-kit/cli: faults and limits with real `acp-kit agent` processes at full
 * size. Prints one line per figure and exits non-zero when any invariant breaks. Needs a build
 * (`npx turbo run build --filter=@acp-kit/cli...`); scale with STRESS_SCALE (1 = full); STRESS_SEED
 * picks the seed of its random choices (a fresh one, printed, without it). `npm run stress:check`
 * ({@link ./check.ts}) is the reduced run `npm run check` makes.
 */
import { requireBuild } from '../test/harness.js';
import { Figures } from './figures.js';
import { cliStress } from './suite.js';

const scale = Number(process.env.STRESS_SCALE ?? '1');
const seed = Number(process.env.STRESS_SEED ?? Date.now() % 2 ** 31);

async function main(): Promise<void> {
  requireBuild();
  process.stdout.write(
    `cli stress (seed ${seed}, scale ${scale}, gc ${typeof globalThis.gc === 'function' ? 'on' : 'off'})\n`,
  );
  const f = new Figures();
  await cliStress(f, scale, seed);
  if (f.finish()) process.stdout.write(`\nreproduce with STRESS_SEED=${seed} STRESS_SCALE=${scale}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`stress run failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
