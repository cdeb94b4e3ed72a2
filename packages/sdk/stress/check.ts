/**
 * `npm run stress:check` for @acp-kit/sdk, run by the root `npm run check`: the stress suite at a
 * reduced size, so a broken invariant cannot land unnoticed, at a small fraction of
 * `npm run stress`'s cost. It runs
 * - the seeded sections (fuzz, interleavings) with every seed of {@link FUZZ_REGRESSIONS} and one
 *   more, printed first: a fixed one in `npm run check` (cacheable), a fresh one with `--fresh`
 *   (`npm run stress:fresh`); STRESS_SEED fixes it, to reproduce a failure;
 * - every regression seed's fuzz run again at the sizes it failed at;
 * - the unseeded sections (limits, memory, replay sizes, slow readers, cancel races) once.
 * STRESS_SCALE overrides the reduced scale (default {@link CHECK_SCALE}).
 *
 * Run with `node --expose-gc --import tsx stress/check.ts` so memory figures exclude garbage.
 */
import { Figures } from './figures.js';
import { guardProcess } from './process-guard.js';
import { FUZZ_REGRESSIONS } from './regressions.js';
import { fuzzSection, fuzzSizes, guardFigures, interleavingSection, sizedSections } from './suite.js';

/** The reduced scale: 1 200 fuzzed lines per side and seed, 200 interleaving histories. */
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
  const fixed = [...new Set(FUZZ_REGRESSIONS.map((r) => r.seed))];
  process.stdout.write(
    `sdk stress check (${seedLabel} ${fresh}, fixed seeds ${fixed.join(', ')}; scale ${scale}, gc ${typeof globalThis.gc === 'function' ? 'on' : 'off'})\n`,
  );
  const guard = guardProcess();
  const f = new Figures();
  for (const seed of [fresh, ...fixed.filter((s) => s !== fresh)]) {
    process.stdout.write(`seed ${seed}${seed === fresh ? ` (${seedLabel})` : ''}:\n`);
    await fuzzSection(f, seed, fuzzSizes(scale));
    interleavingSection(f, seed, scale);
  }
  for (const r of FUZZ_REGRESSIONS) {
    process.stdout.write(`regression seed ${r.seed}, ${r.side} side, ${r.lines} lines (${r.what}):\n`);
    await fuzzSection(f, r.seed, { lines: r.lines, sweepSeeds: r.sweepSeeds }, [r.side]);
  }
  process.stdout.write('unseeded sections:\n');
  await sizedSections(f, scale);
  guardFigures(f, guard.stop());
  if (f.finish()) process.stdout.write(`\nreproduce with STRESS_SEED=${fresh} npm run stress:check\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`stress check failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
