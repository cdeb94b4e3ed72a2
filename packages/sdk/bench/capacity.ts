/**
 * Capacity per core (issue #42): many concurrent streaming sessions on one agent process, against
 * the official SDK's server under the same load. `npm run bench:capacity` at the root (it builds
 * the SDK and the CLI first), or `npm run bench -w @acp-kit/sdk -- capacity`.
 *
 * Per cell (one N, one transport, one implementation; bench/capacity-run.ts):
 * - one fresh agent process: ours (our `Agent` under `listenAcp`, bench/remote-agent.ts), the
 *   official one (an agent app of `@agentclientprotocol/sdk` 2.4.0 under its `AcpServer`,
 *   bench/official-remote-agent.ts), or ours on stdio behind `acp-kit serve` (the official SDK
 *   has no counterpart: it ships no command or server that puts a stdio agent behind an HTTP
 *   endpoint; its `AcpServer` hosts an in-process agent app only);
 * - CAPACITY_CLIENTS load-generator processes (bench/capacity-client.ts; default 2), so the
 *   clients' CPU is not in the agent's figure, opening N sessions between them over Streamable
 *   HTTP or WebSocket, each session on a connection of its own; for serve, which starts one agent
 *   process per connection, each load generator puts all its sessions on one connection (so
 *   serve runs CAPACITY_CLIENTS agent processes, and the agent's figures are its whole process
 *   tree). One session in ten (CAPACITY_SECOND_SHARE) gets a second client on a connection of its
 *   own, attached with `session/resume`: ours fans out through its session log; the official
 *   SDK leaves fan-out to the app, so its agent app keeps the attached client contexts and
 *   notifies each. Behind serve no session has a second client: another connection is another
 *   agent process, which does not hold the session.
 * - every session streams paced turns (bench/paced-turn.ts): 30 chunks/s of 20–80 characters, one
 *   timer per streaming session (why: that file's header), 2–4 s per turn, a tool call (opened by
 *   one `tool_call_update`, completed by another) in 3 turns of 10, a new prompt 0–1 s after each
 *   turn ends;
 * - after a warm-up, a fixed measuring window: chunks/s taken in (ours: applied to the client's
 *   `ConversationStore`; official: delivered to its `session/update` handler), every client of
 *   every session counted; the agent's CPU time from /proc over the window per chunk taken in (µs)
 *   and chunks per agent core-second; chunk latency p50/p99 from the agent handing the chunk to
 *   its SDK to the client having it (the stamp in the chunk's text, `performance.timeOrigin +
 *   performance.now()` on both sides); `session/prompt` → answer p99; the agent's RSS growth since
 *   before the sessions, per session, and its live heap growth per session (after a full GC,
 *   asked over IPC once the window's other figures are taken: RSS also counts garbage that a heap
 *   sized for its load has not returned), and where the RSS grew, as it was just before that GC
 *   (bench/rss-parts.ts: V8's young generation, old generation, other spaces, outside V8's heap);
 * - then a drain and a check of the whole run: no new prompts, every turn ends, and the chunks
 *   taken in must equal what the agent says it sent (the count each session's last chunk carries,
 *   once per client of the session; the agent process's own total where it can be asked), none
 *   out of order or twice, every session answered. A failed check fails the benchmark.
 * The same run measures the floors (bench/chunk-costs.ts): `JSON.stringify` + one socket write of
 * the same chunk message — in a tight loop to one socket (the issue's floor), and spread as a
 * cell's chunks are, one write per event-loop turn over up to 1 000 sockets (what the kernel
 * charges for a write that wakes a sleeping reader) — and `JSON.parse` alone against our parse +
 * validate. Each line prints
 * the load average and whether the run was CPU-bound: the machine's busy share of all cores over
 * the window (/proc/stat) or the benchmark's own processes' CPU ÷ (cores × wall) at 90 % or more —
 * then chunks/s and latency say what the machine could give, and CPU per chunk is the figure to
 * compare. A load-generator process at 90 % of a core or more is flagged: its own delays are then in
 * the latency.
 *
 * Sizes: N = 100, 1 000, 5 000 (`CAPACITY_SESSIONS=100,1000` to choose; a cell is skipped when
 * the last cell's memory per session says it would not fit in the free memory), a 5 s warm-up
 * and a 20 s window per cell (`CAPACITY_WARMUP_S`, `CAPACITY_WINDOW_S`), transports
 * `CAPACITY_TRANSPORTS=http,websocket,serve`. `BENCH_SCALE=small`: N = 5 and 20, 1 s + 3 s.
 * `CAPACITY_PROFILE=1`: records our agent's CPU profile in the HTTP cell of the largest N
 * (`node --cpu-prof`, into a temporary directory it prints) and prints its top self-time
 * functions. `CAPACITY_ALLOCATIONS=1`: samples what each agent allocates over the window of the
 * HTTP cell of the largest N (V8's sampling heap profiler, collected objects included;
 * bench/allocation-sampling.ts) and prints bytes per chunk sent, by where the code lives, the top
 * allocating functions and ours ÷ official: a figure the machine's load does not move, unlike
 * CPU; those cells' CPU figures include the sampler. Loopback only; every process is stopped at the end of each cell and on failure.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { AllocationReport } from './allocation-sampling.js';
import { chunkCosts } from './chunk-costs.js';
import type { CapacityProfile, Implementation } from './capacity-protocol.js';
import { type CellReport, runCapacityCell } from './capacity-run.js';
import { assertCompiledCliIsFresh, assertCompiledSdkIsFresh } from './compiled-sdk.js';
import { topSelfTime } from './cpu-profile-summary.js';
import { loadAverage } from './load-average.js';

const small = process.env.BENCH_SCALE === 'small';
const list = (value: string | undefined, fallback: number[]): number[] =>
  value === undefined ? fallback : value.split(',').map(Number);
const SESSIONS = list(process.env.CAPACITY_SESSIONS, small ? [5, 20] : [100, 1_000, 5_000]);
const WARMUP_MS = Number(process.env.CAPACITY_WARMUP_S ?? (small ? 1 : 5)) * 1000;
const WINDOW_MS = Number(process.env.CAPACITY_WINDOW_S ?? (small ? 3 : 20)) * 1000;
const CLIENTS = Number(process.env.CAPACITY_CLIENTS ?? 2);
const SECOND_SHARE = Number(process.env.CAPACITY_SECOND_SHARE ?? 0.1);
const PROFILES = (process.env.CAPACITY_TRANSPORTS ?? 'http,websocket,serve').split(',') as CapacityProfile[];
const PROFILE_CPU = process.env.CAPACITY_PROFILE === '1';
const SAMPLE_ALLOCATIONS = process.env.CAPACITY_ALLOCATIONS === '1';

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
const ms = (n: number): string => `${fmt(n, n < 10 ? 2 : 1)} ms`;
const kb = (bytes: number): string => `${fmt(bytes / 1024, 1)} KB`;
const pct = (share: number): string => `${fmt(share * 100)} %`;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

/** Whether the drain's check holds: every chunk the agent sent reached every client of its session, once. */
function checkHolds(r: CellReport): boolean {
  const c = r.check;
  return (
    c.inFlight === 0 &&
    c.irregular === 0 &&
    c.withoutReceipt === 0 &&
    c.behind === 0 &&
    c.lost === 0 &&
    c.agentSent > 0 &&
    (Number.isNaN(c.agentTotal) || c.agentTotal === c.agentSent)
  );
}

function printCell(r: CellReport): void {
  const c = r.check;
  console.log(
    `  ${r.profile.padEnd(9)} ${r.implementation.padEnd(8)} ${fmt(r.sessions).padStart(5)} sessions (+${r.secondClients} second clients)  ` +
      `${fmt(r.chunksPerSecond).padStart(7)} chunks/s  agent ${fmt(r.agentCpuUsPerChunk, 1).padStart(6)} µs/chunk  ` +
      `${fmt(r.chunksPerAgentCoreSecond).padStart(7)} chunks/core-s  latency p50 ${ms(r.latencyP50Ms)} p99 ${ms(
        r.latencyP99Ms,
      )}  receipt p99 ${ms(r.receiptP99Ms)} (${r.receipts})  RSS ${kb(r.rssPerSession)}/session (live heap ${kb(r.heapPerSession)})`,
  );
  console.log(
    `      window ${fmt(r.windowMs / 1000, 1)} s: ${fmt(r.delivered)} chunks, agent CPU ${fmt(r.agentCpuMs)} ms, clients ${fmt(
      r.clientsCpuMs,
    )} ms (${r.clientProcesses} processes, the busiest at ${pct(r.busiestClientShare)} of a core${
      r.busiestClientShare >= 0.9 ? ': SATURATED, the load generator may set chunks/s and latency' : ''
    }); own share of ${r.cores} cores ${pct(r.ownShareOfCores)}, machine busy ${pct(
      r.machineBusy,
    )}${r.cpuBound ? ' → CPU-bound' : ''}  [load ${r.load}]`,
  );
  if (r.rssParts) {
    const p = r.rssParts;
    console.log(
      `      RSS growth per session before the full GC: V8's young generation ${kb(p.youngGeneration)}, old generation ${kb(
        p.oldGeneration,
      )}, other V8 spaces ${kb(p.otherSpaces)}, outside V8's heap ${kb(p.outsideHeap)}`,
    );
  }
  console.log(
    `      check: ${fmt(c.delivered)} chunks taken in of ${fmt(c.expected)} expected (${fmt(c.agentSent)} sent, the agent's own count ${fmt(
      c.agentTotal,
    )}), in flight ${c.inFlight}, out of order ${c.irregular}, sessions without receipt ${c.withoutReceipt}, second clients behind ${c.behind}, sessions lost ${c.lost}${
      c.lost > 0 ? ` (${c.lostReasons.join('; ')})` : ''
    }: ${checkHolds(r) ? 'ok' : 'FAILED'}`,
  );
}

const perChunk = (a: AllocationReport): number => a.bytes / a.chunks;

function printAllocations(a: AllocationReport): void {
  const areas = Object.entries(a.areas)
    .sort((x, y) => y[1] - x[1])
    .map(([area, bytes]) => `${area} ${pct(bytes / a.bytes)}`)
    .join(', ');
  console.log(
    `      allocated over the window (sampled; this cell's CPU figures include the sampler): ${fmt(
      perChunk(a),
    )} bytes per chunk sent (${fmt(a.bytes / 2 ** 20)} MB for ${fmt(a.chunks)} chunks); by where: ${areas}; the most:`,
  );
  for (const f of a.top)
    console.log(`        ${fmt(f.bytes / a.chunks).padStart(6)} B/chunk  ${f.name}  ${f.where}`);
}

function printRatios(ours: CellReport, official: CellReport): void {
  const ratio = (a: number, b: number): string => `${fmt(a / b, 2)}×`;
  console.log(
    `    ours ÷ official (${ours.profile}, ${fmt(ours.sessions)} sessions): chunks per agent core-second ${ratio(
      ours.chunksPerAgentCoreSecond,
      official.chunksPerAgentCoreSecond,
    )}, agent µs/chunk ${ratio(ours.agentCpuUsPerChunk, official.agentCpuUsPerChunk)}, chunks/s ${ratio(
      ours.chunksPerSecond,
      official.chunksPerSecond,
    )}, latency p99 ${ratio(ours.latencyP99Ms, official.latencyP99Ms)}, receipt p99 ${ratio(
      ours.receiptP99Ms,
      official.receiptP99Ms,
    )}, RSS/session ${ratio(ours.rssPerSession, official.rssPerSession)}`,
  );
  if (ours.profile === 'http' && ours.sessions === 1_000) {
    const perCore = ours.chunksPerAgentCoreSecond / official.chunksPerAgentCoreSecond;
    console.log(
      `    targets at 1 000 sessions over HTTP: ≥ 3× the official chunks per core ${met(perCore >= 3)}, chunk p99 under 50 ms ${met(
        ours.latencyP99Ms < 50,
      )}, RSS per session under 60 KB ${met(ours.rssPerSession < 60 * 1024)}`,
    );
  }
}

assertCompiledSdkIsFresh();
if (PROFILES.includes('serve')) assertCompiledCliIsFresh();
const cores = os.availableParallelism();
console.log(
  `capacity: N concurrent streaming sessions on one agent process, 127.0.0.1, ${CLIENTS} load-generator processes, ${pct(
    SECOND_SHARE,
  )} of sessions with a second client, warm-up ${WARMUP_MS / 1000} s + window ${WINDOW_MS / 1000} s per cell, ${cores} cores, ${fmt(
    os.totalmem() / 2 ** 30,
    1,
  )} GB${small ? '; BENCH_SCALE=small' : ''}  [load ${loadAverage()}]`,
);

const SPREAD_SOCKETS = Math.min(1_000, Math.max(...SESSIONS));
const costs = await chunkCosts(small ? 5_000 : 50_000, small ? 3 : 9, SPREAD_SOCKETS);
console.log(
  `floors (this process's CPU per chunk message): JSON.stringify + one socket write ${fmt(costs.stringifyWriteUs, 2)} µs, the same one write per event-loop turn over ${fmt(
    SPREAD_SOCKETS,
  )} sockets ${fmt(costs.spreadWriteUs, 2)} µs; JSON.parse ${fmt(
    costs.parseUs,
    2,
  )} µs, ours parse + validate ${fmt(costs.parseValidateUs, 2)} µs (${fmt(costs.parseValidateUs / costs.parseUs, 2)}× JSON.parse; target ≤ 1.10×)  [load ${loadAverage()}]`,
);

let failed = false;
let perSessionEstimate = 0;
const largest = Math.max(...SESSIONS);
for (const sessions of SESSIONS) {
  // What one session costs the agent, its clients and the official stack, with room to spare.
  const needed = perSessionEstimate * 4 * sessions;
  if (needed > os.freemem()) {
    console.log(
      `  ${fmt(sessions)} sessions: skipped, about ${fmt(needed / 2 ** 30, 1)} GB needed by the last cell's measure, ${fmt(
        os.freemem() / 2 ** 30,
        1,
      )} GB free`,
    );
    continue;
  }
  for (const profile of PROFILES) {
    const implementations: Implementation[] = profile === 'serve' ? ['ours'] : ['ours', 'official'];
    const reports = new Map<Implementation, CellReport>();
    for (const implementation of implementations) {
      const profiled = PROFILE_CPU && implementation === 'ours' && profile === 'http' && sessions === largest;
      const sampled = SAMPLE_ALLOCATIONS && profile === 'http' && sessions === largest;
      const cpuProfileDir = profiled ? mkdtempSync(join(os.tmpdir(), 'acp-capacity-profile-')) : undefined;
      const report = await runCapacityCell({
        implementation,
        profile,
        sessions,
        clients: CLIENTS,
        secondShare: SECOND_SHARE,
        warmupMs: WARMUP_MS,
        windowMs: WINDOW_MS,
        ...(cpuProfileDir ? { cpuProfileDir } : {}),
        ...(sampled ? { allocations: true } : {}),
      });
      printCell(report);
      if (report.allocations) printAllocations(report.allocations);
      if (!checkHolds(report)) failed = true;
      reports.set(implementation, report);
      // Small cells and serve (whole agent processes per connection) say little about one more session.
      if (sessions >= 100 && profile !== 'serve' && Number.isFinite(report.rssPerSession))
        perSessionEstimate = Math.max(perSessionEstimate, Math.max(report.rssPerSession, 0));
      if (cpuProfileDir) {
        const { file, busyMs, functions } = topSelfTime(cpuProfileDir, 20);
        console.log(
          `      our agent's CPU profile, its whole life (start-up and the opening of the sessions included): ${file}; ${fmt(busyMs)} ms busy, top self time:`,
        );
        for (const f of functions)
          console.log(
            `        ${pct(f.share).padStart(5)}  ${fmt(f.ms).padStart(6)} ms  ${f.name}  ${f.where}`,
          );
      }
    }
    if (profile === 'serve')
      console.log(
        '    serve: no official counterpart (the official SDK has no server that puts a stdio agent behind an endpoint); the agent figures are serve and its agent processes together',
      );
    const ours = reports.get('ours');
    const official = reports.get('official');
    if (ours && official) printRatios(ours, official);
    if (ours?.allocations && official?.allocations)
      console.log(
        `    ours ÷ official: bytes allocated per chunk sent ${fmt(
          perChunk(ours.allocations) / perChunk(official.allocations),
          2,
        )}×`,
      );
    if (ours && profile === 'http') {
      console.log(
        `    ours over HTTP: ${fmt(ours.agentCpuUsPerChunk, 1)} µs agent CPU per chunk (target ≤ 5 µs ${met(
          ours.agentCpuUsPerChunk <= 5,
        )}), ${fmt(ours.agentCpuUsPerChunk / costs.stringifyWriteUs, 1)}× JSON.stringify + one write (target ≤ 2× ${met(
          ours.agentCpuUsPerChunk <= 2 * costs.stringifyWriteUs,
        )}), ${fmt(ours.agentCpuUsPerChunk / costs.spreadWriteUs, 1)}× the same spread over ${fmt(SPREAD_SOCKETS)} sockets`,
      );
    }
  }
}
if (failed) {
  console.error(
    'capacity: a cell failed its check (chunks lost or duplicated, prompts unanswered, sessions lost to connection errors): see "FAILED" above',
  );
  process.exit(1);
}
process.exit(0);
