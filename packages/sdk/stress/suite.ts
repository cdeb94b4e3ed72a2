/**
 * The sections of the SDK's stress suite, shared by `npm run stress` (full size, one seed) and
 * `npm run stress:check` (reduced size, several seeds): each prints its figures through a
 * {@link Figures} and records the invariants it saw broken there.
 */
import { CANCEL_TIMINGS, checkCancelRaces } from './cancel-races.js';
import type { Figures } from './figures.js';
import { type FuzzOptions, type FuzzReport, fuzzConnection } from './fuzz/fuzz-connection.js';
import { checkInterleavings } from './interleavings.js';
import { BUFFER_FULL, oversizedLine, stalledClient } from './limits.js';
import type { GuardReport } from './process-guard.js';
import { checkReplaySizes } from './replay-sizes.js';
import { checkSlowReaders } from './slow-readers.js';

const MiB = 1024 * 1024;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;

/** The fuzz section's sizes at `scale`: 60 000 lines per side and a wrong-type sweep of 300 seeds at 1. */
export function fuzzSizes(scale: number): Pick<FuzzOptions, 'lines' | 'sweepSeeds'> {
  return { lines: Math.round(60_000 * scale), sweepSeeds: Math.round(300 * scale) };
}

/**
 * Fuzzes the agent side with `seed` and the client side with `seed + 1`, each with `sizes`, and
 * prints the figures of both runs (every count but the lines must be zero).
 */
export async function fuzzSection(
  f: Figures,
  seed: number,
  sizes: Pick<FuzzOptions, 'lines' | 'sweepSeeds'>,
  sides: readonly FuzzOptions['side'][] = ['agent', 'client'],
): Promise<void> {
  const fuzz: FuzzReport[] = [];
  for (const side of sides) {
    fuzz.push(await fuzzConnection({ side, seed: seed + (side === 'agent' ? 0 : 1), ...sizes }));
  }
  f.samples.push(...fuzz.flatMap((r) => r.samples.map((s) => `${r.side} (seed ${seed}): ${s}`)));
  const total = (key: keyof FuzzReport): number => fuzz.reduce((sum, r) => sum + (r[key] as number), 0);
  f.figure(
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
    f.figure(`verified outcomes by class (${r.side})`, classes.join(' | '));
  }
  f.figure('wrong error codes', total('wrongCodes'), total('wrongCodes') === 0);
  f.figure('missing replies', total('missingReplies'), total('missingReplies') === 0);
  f.figure(
    'diagnostic mismatches (silent lines)',
    total('diagnosticMismatches'),
    total('diagnosticMismatches') === 0,
  );
  f.figure(
    'receipts never reported to the submitter',
    total('receiptsWithoutReport'),
    total('receiptsWithoutReport') === 0,
  );
  f.figure(
    'stored objects with a __proto__-set prototype',
    total('poisonedObjects'),
    total('poisonedObjects') === 0,
  );
  const answered = fuzz.every((r) => r.answersAfterStorm);
  f.figure('valid request answered after the storm', answered ? `yes (${sides.join(', ')})` : 'no', answered);
}

/** Checks 20 prompts' interleavings in `10 000 × scale` generated histories drawn with `seed`. */
export function interleavingSection(f: Figures, seed: number, scale: number): void {
  const orders = checkInterleavings({ histories: Math.round(10_000 * scale), perHistory: 20, seed });
  f.figure(
    'interleavings checked',
    `${orders.interleavings} (${orders.histories} histories, ${orders.replays} replays)`,
  );
  f.figure('divergences', orders.divergences, orders.divergences === 0);

  f.samples.push(...orders.samples);
}

/** The sections that draw nothing at random: limits, memory, replay sizes, slow readers, cancel races. */
export async function sizedSections(f: Figures, scale: number): Promise<void> {
  const limit = 8 * MiB;
  const oversized = await oversizedLine(limit, 2);
  const oversizedOk = oversized.error?.code === -32600 && oversized.answeredAfter;
  f.figure(
    'oversized line (2× the 8 MiB limit) answered -32600, next request served',
    oversizedOk ? 'yes' : 'no',
    oversizedOk,
  );
  f.figure(
    'peak memory while receiving it',
    `${mib(oversized.peakGrowthBytes)} (limit ${mib(limit)}, line ${mib(oversized.lineBytes)})`,
    oversized.peakGrowthBytes < 1.5 * limit,
  );

  // The stalled client's queue cap, and loads of 5× and 20× the cap: scaled together, so at any
  // STRESS_SCALE the stream really fills the queue and the larger load is 4× the smaller.
  const cap = Math.max(MiB, Math.round(4 * MiB * Math.min(1, scale)));
  const chunkBytes = 1024;
  // Whole chunks: at a scale that makes the cap no multiple of a chunk, a fractional count would
  // never equal the chunks a reader counts.
  const small = await stalledClient(cap, Math.round((5 * cap) / chunkBytes), chunkBytes);
  const stalled = await stalledClient(cap, Math.round((20 * cap) / chunkBytes), chunkBytes);
  const stalledOk = [small, stalled].every(
    (r) => r.closedWith?.code === BUFFER_FULL && r.otherClientGotEverything,
  );
  f.figure(
    'stalled client closed with -32098, reading client got every chunk',
    stalledOk ? 'yes' : 'no',
    stalledOk,
  );
  // What the stalled client can make this process hold, measured after forced collections (so
  // garbage awaiting the next scavenge, several MiB of it, does not count; without --expose-gc the
  // figure means nothing and fails). Derived bound, not fitted: the queue holds at most `cap` bytes
  // of serialized JSON, each message held once; per queued message the connection, the writer and
  // the session keep a few promises, closures and a queue entry — about 0.7 KiB in a heap snapshot,
  // so at most 0.6× a message of 1 KiB content (≈1.15 KiB of JSON); plus a fixed part (the agent,
  // its session and two connections, code compiled during the run, run-to-run variation of the
  // measurement) under FIXED. The held memory must not grow with the load beyond that variation:
  // four times as much streamed may add at most half a queue plus NOISE.
  const FIXED = 2 * MiB;
  const NOISE = MiB;
  const bound = 1.6 * cap + FIXED;
  const gcOn = typeof (globalThis as { gc?: unknown }).gc === 'function';
  f.figure(
    'memory held while streaming to the stalled client (after forced GC)',
    `${mib(stalled.peakGrowthBytes)} for ${mib(stalled.attemptedBytes)} streamed, ${mib(small.peakGrowthBytes)} for ${mib(small.attemptedBytes)}; queue ${mib(stalled.queuedAtPeak)} of its ${mib(cap)} cap at the peak; bound ${mib(bound)}${gcOn ? '' : ' (no --expose-gc: not measured)'}`,
    gcOn &&
      stalled.peakGrowthBytes < bound &&
      small.peakGrowthBytes < bound &&
      stalled.peakGrowthBytes < small.peakGrowthBytes + cap / 2 + NOISE,
  );

  // Replay of every retained size up to the line limit, in every replay style (#13 item 1).
  const replayLimit = Math.max(256 * 1024, Math.round(limit * Math.min(1, scale)));
  const sizes = await checkReplaySizes(replayLimit);
  f.figure(
    'retained sizes up to the line limit',
    `${sizes.prompts} prompts at ${sizes.sizes} line sizes from 512 bytes to the limit and just over (limit ${mib(sizes.limit)}): ${sizes.accepted} retained, ${sizes.refused} refused; ${sizes.replies} replies retained, ${sizes.repliesRefused} reply writes refused`,
  );
  f.figure(
    'size verdicts wrong (over the limit retained, or within it refused)',
    sizes.wrongVerdicts,
    sizes.wrongVerdicts === 0,
  );
  f.figure(
    'turns ended idle without a stop reason',
    sizes.turnsWithoutStopReason,
    sizes.turnsWithoutStopReason === 0,
  );
  for (const s of sizes.styles) {
    const ok = s.failed === undefined && s.missing === 0 && s.altered === 0 && s.unexpected === 0;
    f.figure(
      `replay '${s.style}' after restart`,
      `${s.intact} intact, ${s.missing} missing, ${s.altered} altered, ${s.unexpected} never accepted; largest line ${s.largestLine} of ${sizes.limit} bytes${s.failed ? `; resume failed ${s.failed}` : ''}`,
      ok,
    );
  }

  // Slow readers on one session, live and mid-replay (#13 item 2).
  const slow = await checkSlowReaders({
    slowLive: 3,
    slowMidReplay: 2,
    chunks: Math.max(2_000, Math.round(20_000 * scale)),
    history: Math.max(500, Math.round(5_000 * scale)),
  });
  const slowOk = slow.readerTurnEnded && slow.readerChunks === slow.streamed && slow.thirdClientReceipt;
  f.figure(
    `reader's stream complete and third client's receipt with ${slow.slowLive} live + ${slow.slowMidReplay} mid-replay slow clients`,
    `${slow.readerChunks} of ${slow.streamed} chunks, turn ${slow.readerTurnEnded ? 'ended' : 'never ended'}, receipt ${slow.thirdClientReceipt ? 'yes' : 'no'}`,
    slowOk,
  );
  f.figure(
    'slow clients cut off with -32098',
    `${Object.entries(slow.cutOff)
      .map(([code, n]) => `${code}×${n}`)
      .join(
        ' ',
      )} of ${slow.slowLive + slow.slowMidReplay}${slow.notCutOff.length ? ` (not: ${slow.notCutOff.join('; ')})` : ''}`,
    slow.notCutOff.length === 0,
  );

  // Cancel races right behind a prompt (#13 item 5).
  const races = await checkCancelRaces(Math.max(20, Math.round(200 * scale)));
  for (const timing of CANCEL_TIMINGS) {
    const t = races.timings.find((r) => r.timing === timing);
    const reasons = t
      ? Object.entries(t.stopReasons)
          .map(([reason, n]) => `${reason}×${n}`)
          .join(' ')
      : 'not run';
    f.figure(
      `cancel ${timing}: stop reasons`,
      `${reasons}; wrong ${t?.wrong ?? '?'}`,
      t !== undefined && t.wrong === 0,
    );
  }
  f.figure('prompts or turns stuck in the cancel races', races.stuck, races.stuck === 0);

  f.samples.push(...sizes.samples, ...races.samples);
}

/** Prints what the process guard saw over the whole run. */
export function guardFigures(f: Figures, report: GuardReport): void {
  f.figure('crashes (uncaught exceptions)', report.crashes, report.crashes === 0);
  f.figure('unhandled rejections', report.unhandledRejections, report.unhandledRejections === 0);
  f.figure(
    'prototype pollution',
    report.pollution.length === 0 ? 'none' : report.pollution.join(', '),
    report.pollution.length === 0,
  );
  f.samples.push(...report.samples);
}
