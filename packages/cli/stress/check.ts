/**
 * `npm run stress:check` for @acp-kit/cli, run by the root `npm run check`: the CLI's stress suite
 * at a fiftieth of its size (each section keeps its floor: 100 sessions, 3 restarts, 9 cancel
 * races…) with one seed, printed (a fixed one in `npm run check`, so Turbo may cache the run; a
 * fresh one with `--fresh`, `npm run stress:fresh`; STRESS_SEED fixes it, to reproduce a failure),
 * and again with every seed of {@link REGRESSION_SEEDS}. STRESS_SCALE overrides the reduced scale.
 */
import { requireBuild } from '../test/harness.js';
import { Figures } from './figures.js';
import { cliStress } from './suite.js';

/**
 * Seeds that broke an invariant of this suite (none has yet): add a failing `npm run stress` seed
 * here, with the issue that fixed it.
 */
const REGRESSION_SEEDS: readonly number[] = [];
const CHECK_SCALE = 0.02;
const scale = Number(process.env.STRESS_SCALE ?? CHECK_SCALE);
/**
 * The seed run beside the fixed ones. `npm run check` runs {@link CHECK_SEED}, so the run is a
 * function of the code and Turbo may serve it from cache; `npm run stress:fresh` (`--fresh`, never
 * cached) runs a new one each time to explore; STRESS_SEED fixes it, to reproduce a failure.
 */
const CHECK_SEED = 1;
const freshRun = process.argv.includes('--fresh');
const fresh = Number(process.env.STRESS_SEED ?? (freshRun ? Date.now() % 2 ** 31 : CHECK_SEED));
const seedLabel =
  process.env.STRESS_SEED !== undefined ? 'given seed' : freshRun ? 'fresh seed' : 'check seed';

async function main(): Promise<void> {
  requireBuild();
  process.stdout.write(
    `cli stress check (${seedLabel} ${fresh}, fixed seeds ${REGRESSION_SEEDS.join(', ') || 'none'}; scale ${scale}, gc ${typeof globalThis.gc === 'function' ? 'on' : 'off'})\n`,
  );
  const f = new Figures();
  for (const seed of [fresh, ...REGRESSION_SEEDS.filter((s) => s !== fresh)]) {
    process.stdout.write(`seed ${seed}${seed === fresh ? ` (${seedLabel})` : ''}:\n`);
    await cliStress(f, scale, seed);
  }
  if (f.finish()) process.stdout.write(`\nreproduce with STRESS_SEED=${fresh} npm run stress:check\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`stress check failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
