/**
 * `npm run stress` for @acp-kit/sdk: the reliability checks at full size. Prints one line per
 * figure and exits non-zero when any invariant breaks. Sizes can be scaled with STRESS_SCALE
 * (1 = full, 0.1 = a tenth).
 *
 * Run with `node --expose-gc --import tsx stress/run.ts` so memory figures exclude garbage.
 */
import { fuzzConnection, type FuzzReport } from './fuzz/fuzz-connection.js';
import { checkInterleavings } from './interleavings.js';
import { BUFFER_FULL, oversizedLine, stalledClient } from './limits.js';
import { guardProcess } from './process-guard.js';

const scale = Number(process.env.STRESS_SCALE ?? '1');
const seed = Number(process.env.STRESS_SEED ?? Date.now() % 2 ** 31);
const MiB = 1024 * 1024;
const broken: string[] = [];

function figure(name: string, value: string | number, ok = true): void {
  process.stdout.write(`${ok ? '  ' : '✗ '}${name}: ${value}\n`);
  if (!ok) broken.push(name);
}

const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;

async function main(): Promise<void> {
  process.stdout.write(
    `sdk stress (seed ${seed}, scale ${scale}, gc ${typeof globalThis.gc === 'function' ? 'on' : 'off'})\n`,
  );
  const guard = guardProcess();

  const lines = Math.round(60_000 * scale);
  const fuzz: FuzzReport[] = [];
  for (const side of ['agent', 'client'] as const) {
    fuzz.push(
      await fuzzConnection({ side, lines, seed: seed + fuzz.length, sweepSeeds: Math.round(300 * scale) }),
    );
  }
  const total = (key: keyof FuzzReport): number => fuzz.reduce((sum, r) => sum + (r[key] as number), 0);
  figure(
    'lines fuzzed',
    `${total('lines')} (${fuzz.map((r) => `${r.side} ${r.lines}`).join(', ')}; ${total('swept')} of them a wrong-type sweep of every path)`,
  );
  for (const r of fuzz) {
    const classes = Object.entries(r.outcomes).map(
      ([cls, outcomes]) =>
        `${cls} ${Object.entries(outcomes)
          .sort((a, b) => b[1] - a[1])
          .map(([outcome, n]) => `${outcome}×${n}`)
          .join(' ')}`,
    );
    figure(`verified outcomes by class (${r.side})`, classes.join(' | '));
  }
  figure('wrong error codes', total('wrongCodes'), total('wrongCodes') === 0);
  figure('missing replies', total('missingReplies'), total('missingReplies') === 0);
  figure(
    'diagnostic mismatches (silent lines)',
    total('diagnosticMismatches'),
    total('diagnosticMismatches') === 0,
  );
  figure(
    'receipts never reported to the submitter',
    total('receiptsWithoutReport'),
    total('receiptsWithoutReport') === 0,
  );
  figure(
    'stored objects with a __proto__-set prototype',
    total('poisonedObjects'),
    total('poisonedObjects') === 0,
  );
  const answered = fuzz.every((r) => r.answersAfterStorm);
  figure('valid request answered after the storm', answered ? 'yes (agent, client)' : 'no', answered);

  const orders = checkInterleavings({ histories: Math.round(10_000 * scale), perHistory: 20, seed });
  figure(
    'interleavings checked',
    `${orders.interleavings} (${orders.histories} histories, ${orders.replays} replays)`,
  );
  figure('divergences', orders.divergences, orders.divergences === 0);

  const limit = 8 * MiB;
  const oversized = await oversizedLine(limit, 2);
  const oversizedOk = oversized.error?.code === -32600 && oversized.answeredAfter;
  figure(
    'oversized line (2× the 8 MiB limit) answered -32600, next request served',
    oversizedOk ? 'yes' : 'no',
    oversizedOk,
  );
  figure(
    'peak memory while receiving it',
    `${mib(oversized.peakGrowthBytes)} (limit ${mib(limit)}, line ${mib(oversized.lineBytes)})`,
    oversized.peakGrowthBytes < 1.5 * limit,
  );

  const cap = 4 * MiB;
  // Bounded means: streaming four times as much to the stalled client does not raise the peak.
  const small = await stalledClient(cap, Math.round(20_000 * scale), 1024);
  const stalled = await stalledClient(cap, Math.round(80_000 * scale), 1024);
  const stalledOk = [small, stalled].every(
    (r) => r.closedWith?.code === BUFFER_FULL && r.otherClientGotEverything,
  );
  figure(
    'stalled client closed with -32098, reading client got every chunk',
    stalledOk ? 'yes' : 'no',
    stalledOk,
  );
  figure(
    'peak memory while streaming to the stalled client',
    `${mib(stalled.peakGrowthBytes)} for ${mib(stalled.attemptedBytes)} streamed, ${mib(small.peakGrowthBytes)} for ${mib(small.attemptedBytes)} (queue cap ${mib(cap)})`,
    stalled.peakGrowthBytes < small.peakGrowthBytes + cap && stalled.peakGrowthBytes < 8 * cap,
  );

  const process_ = guard.stop();
  figure('crashes (uncaught exceptions)', process_.crashes, process_.crashes === 0);
  figure('unhandled rejections', process_.unhandledRejections, process_.unhandledRejections === 0);
  figure(
    'prototype pollution',
    process_.pollution.length === 0 ? 'none' : process_.pollution.join(', '),
    process_.pollution.length === 0,
  );

  const samples = [
    ...fuzz.flatMap((r) => r.samples.map((s) => `${r.side}: ${s}`)),
    ...orders.samples,
    ...process_.samples,
  ];
  if (broken.length > 0) {
    process.stdout.write(`\nINVARIANTS BROKEN: ${broken.join('; ')}\n`);
    for (const sample of samples.slice(0, 12)) process.stdout.write(`  - ${sample}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`stress run failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
