/**
 * `npm run stress` for @acp-kit/sdk: the reliability checks at full size. Prints one line per
 * figure and exits non-zero when any invariant breaks. Sizes can be scaled with STRESS_SCALE
 * (1 = full, 0.1 = a tenth); STRESS_SEED picks the seed (a fresh one, printed, without it).
 * `npm run stress:check` ({@link ./check.ts}) is the reduced run `npm run check` makes.
 *
 * Run with `node --expose-gc --import tsx stress/run.ts` so memory figures exclude garbage.
 */
import { Figures } from './figures.js';
import { guardProcess } from './process-guard.js';
import { fuzzSection, fuzzSizes, guardFigures, interleavingSection, sizedSections } from './suite.js';

const scale = Number(process.env.STRESS_SCALE ?? '1');
const seed = Number(process.env.STRESS_SEED ?? Date.now() % 2 ** 31);

async function main(): Promise<void> {
  process.stdout.write(
    `sdk stress (seed ${seed}, scale ${scale}, gc ${typeof globalThis.gc === 'function' ? 'on' : 'off'})\n`,
  );
  const guard = guardProcess();
  const f = new Figures();
  await fuzzSection(f, seed, fuzzSizes(scale));
  interleavingSection(f, seed, scale);
  await sizedSections(f, scale);
  guardFigures(f, guard.stop());
  if (f.finish()) process.stdout.write(`\nreproduce with STRESS_SEED=${seed} STRESS_SCALE=${scale}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`stress run failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
