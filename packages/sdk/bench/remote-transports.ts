/**
 * ACP over the network against the official SDK, end to end on 127.0.0.1, every agent a real
 * child process:
 * - ours: our `Agent` served by `listenAcp` (bench/remote-agent.ts), our `Client` over
 *   `connectHttp` (Streamable HTTP) or `connectWebSocket`; for stdio our Agent on the child's
 *   stdin/stdout under `spawnTransport`;
 * - official: an agent app of `@agentclientprotocol/sdk` 2.4.0 with the same behaviour
 *   (bench/official-remote-agent.ts) served by its `AcpServer` (`createNodeHttpHandler`,
 *   `createNodeWebSocketUpgradeHandler`), its client over `createHttpStream` or
 *   `createWebSocketStream`; for stdio the same app over `ndJsonStream`.
 * The agents' behaviour is bench/remote-behaviour.ts: a prompt is inserted at once; `stream <n>`
 * then streams one reply of n chunks back to back. Ours runs compiled (`@acp-kit/sdk`, this
 * package's dist: build it first; bench/compiled-sdk.ts says why and refuses a stale one), as the
 * official SDK does from its package.
 *
 * Figures, each printed with the load average beside it, and with the CPU time of the client
 * (this process) and of the agent process per receipt or per chunk, which a loaded machine
 * stretches far less than wall time:
 * 1. Insertion-receipt latency: each client submits prompts one after another, no turn running,
 *    each timed from sending `session/prompt` to its answer; p50 and p99 per transport. The six
 *    clients take turns in blocks so load drifting across the run hits them alike. Target: ours
 *    over HTTP has p99 within 2× of ours over stdio.
 * 2. Streaming throughput: chunks per second into the client (ours: applied to its
 *    ConversationStore; the official client has no store: delivered to its update handler),
 *    timed from sending `stream <n>` to the last chunk in, for turns of 1 000 and 10 000 chunks
 *    (a cost that grows faster than the turn shows as falling chunks/s); the median of each
 *    round's ratio. Target: ours ≥ 2× the official server over HTTP.
 * 3. Many idle connections (bench/idle-connections.ts): Streamable HTTP connections opened up to
 *    100, 1 000 and 2 000 on one fresh agent process, each with a session and both SSE streams
 *    open; the memory each step adds per connection (the marginal cost) and the average since the
 *    baseline (which also holds V8's one-off young-generation growth). Target: ours under 50 KB of
 *    RSS per idle connection, marginal at the last step.
 *
 * Scale: BENCH_SCALE=small runs a few seconds' worth (to check the benchmark works); the sizes can
 * be set one by one: BENCH_SAMPLES (receipts per client), BENCH_ROUNDS, BENCH_TURNS (chunks per
 * turn, comma-separated), BENCH_CONNECTIONS (comma-separated). Asserts nothing: machines are noisy.
 */
import { fileURLToPath } from 'node:url';
import type { BenchClient } from './bench-client.js';
import { assertCompiledSdkIsFresh } from './compiled-sdk.js';
import { idleConnectionCosts } from './idle-connections.js';
import { type ListeningAgent, startListeningAgent } from './listening-agent.js';
import { loadAverage } from './load-average.js';
import { connectOfficial } from './official-remote-client.js';
import { connectOurs, type Profile } from './ours-remote-client.js';
import { median, percentile } from './percentile.js';
import { ownCpuMs, processCpuMs } from './process-cpu.js';

const small = process.env.BENCH_SCALE === 'small';
const list = (value: string | undefined, fallback: number[]): number[] =>
  value === undefined ? fallback : value.split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? (small ? 40 : 2000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (small ? 1 : 5));
const TURNS = list(process.env.BENCH_TURNS, small ? [100, 1_000] : [1_000, 10_000]);
const CONNECTIONS = list(process.env.BENCH_CONNECTIONS, small ? [10, 50] : [100, 1_000, 2_000]);
const BLOCKS = 10;
const PROFILES: Profile[] = ['http', 'websocket', 'stdio'];
const IMPLEMENTATIONS = ['ours', 'official'] as const;
type Implementation = (typeof IMPLEMENTATIONS)[number];

const OUR_AGENT = fileURLToPath(new URL('./remote-agent.ts', import.meta.url));
const OFFICIAL_AGENT = fileURLToPath(new URL('./official-remote-agent.ts', import.meta.url));

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const us = (ms: number): string => `${fmt(ms * 1000).padStart(6)} µs`;
const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

interface Driven {
  profile: Profile;
  implementation: Implementation;
  client: BenchClient;
}

async function connectAll(agents: Record<Implementation, ListeningAgent>): Promise<Driven[]> {
  const driven: Driven[] = [];
  for (const profile of PROFILES) {
    driven.push({
      profile,
      implementation: 'ours',
      client: await connectOurs(profile, agents.ours.endpoint),
    });
    driven.push({
      profile,
      implementation: 'official',
      client: await connectOfficial(profile, agents.official.endpoint),
    });
  }
  return driven;
}

const rotated = <T>(xs: T[], by: number): T[] => xs.map((_, i) => xs[(i + by) % xs.length]!);

/** Receipt times (ascending, ms) and CPU per receipt (µs) of one client. */
interface Receipts {
  ms: number[];
  clientCpuUs: number;
  agentCpuUs: number;
}

async function receipts(driven: Driven[]): Promise<Map<Driven, Receipts>> {
  const times = new Map<Driven, number[]>(driven.map((d) => [d, []]));
  const cpu = new Map<Driven, { client: number; agent: number }>(
    driven.map((d) => [d, { client: 0, agent: 0 }]),
  );
  const perBlock = Math.max(1, Math.ceil(SAMPLES / BLOCKS));
  for (let block = 0; block < BLOCKS; block += 1) {
    for (const d of rotated(driven, block)) {
      const mine = times.get(d)!;
      const used = cpu.get(d)!;
      const client = ownCpuMs();
      const agent = processCpuMs(d.client.agentPid);
      for (let i = 0; i < perBlock && mine.length < SAMPLES; i += 1) {
        const start = performance.now();
        await d.client.receipt(`prompt ${mine.length}`);
        mine.push(performance.now() - start);
      }
      used.client += ownCpuMs() - client;
      used.agent += processCpuMs(d.client.agentPid) - agent;
    }
  }
  const out = new Map<Driven, Receipts>();
  for (const d of driven) {
    const ms = times.get(d)!.sort((a, b) => a - b);
    const used = cpu.get(d)!;
    out.set(d, {
      ms,
      clientCpuUs: (used.client * 1000) / ms.length,
      agentCpuUs: (used.agent * 1000) / ms.length,
    });
  }
  return out;
}

const cpuUs = (client: number, agent: number): string =>
  `CPU ${fmt(client + agent).padStart(5)} µs (client ${fmt(client)} + agent ${fmt(agent)})`;

function printReceipts(driven: Driven[], results: Map<Driven, Receipts>): void {
  const of = (profile: Profile, implementation: Implementation): Receipts =>
    results.get(driven.find((d) => d.profile === profile && d.implementation === implementation)!)!;
  for (const profile of PROFILES) {
    const row = (r: Receipts): string =>
      `p50 ${us(percentile(r.ms, 50))}  p99 ${us(
        percentile(r.ms, 99),
      )}  ${cpuUs(r.clientCpuUs, r.agentCpuUs)}`;
    console.log(
      `  ${profile.padEnd(10)} ours ${row(of(profile, 'ours'))}     official ${row(of(profile, 'official'))}`,
    );
  }
  const stdio = percentile(of('stdio', 'ours').ms, 99);
  for (const profile of ['http', 'websocket'] as const) {
    const ratio = percentile(of(profile, 'ours').ms, 99) / stdio;
    const target = profile === 'http' ? `   (target ≤ 2: ${met(ratio <= 2)})` : '';
    console.log(`  ours p99 over ${profile} ÷ ours p99 over stdio: ${ratio.toFixed(2)}${target}`);
  }
}

/** One timed turn: chunks per second, and CPU per chunk (µs) of the client and the agent. */
interface Turn {
  rate: number;
  clientCpuUs: number;
  agentCpuUs: number;
}

async function timedTurn(d: Driven, chunks: number): Promise<Turn> {
  const client = ownCpuMs();
  const agent = processCpuMs(d.client.agentPid);
  const ms = await d.client.streamTurn(chunks);
  return {
    rate: chunks / (ms / 1000),
    clientCpuUs: ((ownCpuMs() - client) * 1000) / chunks,
    agentCpuUs: ((processCpuMs(d.client.agentPid) - agent) * 1000) / chunks,
  };
}

async function throughput(driven: Driven[]): Promise<void> {
  for (const chunks of TURNS) {
    // Warm-up turn per client, so no JIT or first-use cost lands in a timed one.
    for (const d of driven) await d.client.streamTurn(Math.min(chunks, 1_000));
    for (const profile of PROFILES) {
      const ours = driven.find((d) => d.profile === profile && d.implementation === 'ours')!;
      const official = driven.find((d) => d.profile === profile && d.implementation === 'official')!;
      const turns = new Map<Driven, Turn[]>([
        [ours, []],
        [official, []],
      ]);
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        // Alternate who goes first so load drifting across the run hits both alike.
        const pair = round % 2 === 0 ? [ours, official] : [official, ours];
        for (const d of pair) turns.get(d)!.push(await timedTurn(d, chunks));
        ratios.push(turns.get(ours)!.at(-1)!.rate / turns.get(official)!.at(-1)!.rate);
      }
      const summary = (d: Driven): string => {
        const t = turns.get(d)!;
        return `${fmt(median(t.map((x) => x.rate))).padStart(9)} chunks/s, per chunk ${cpuUs(
          median(t.map((x) => x.clientCpuUs)),
          median(t.map((x) => x.agentCpuUs)),
        )}`;
      };
      const ratio = median(ratios);
      const target = profile === 'http' ? ` (target ≥ 2×: ${met(ratio >= 2)})` : '';
      console.log(
        `  ${profile.padEnd(10)} ${fmt(chunks).padStart(
          6,
        )}-chunk turn   ours ${summary(ours)}   official ${summary(
          official,
        )}   ours ÷ official ${ratio.toFixed(2)}×${target}   [load ${loadAverage()}]`,
      );
    }
  }
}

async function idle(): Promise<void> {
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1).padStart(6)} KB`;
  const ours = await idleConnectionCosts(
    OUR_AGENT,
    (endpoint, f) => connectOurs('http', endpoint, f),
    CONNECTIONS,
  );
  const official = await idleConnectionCosts(
    OFFICIAL_AGENT,
    (endpoint, f) => connectOfficial('http', endpoint, f),
    CONNECTIONS,
  );
  let from = 0;
  for (const [at, step] of ours.entries()) {
    const theirs = official[at]!;
    console.log(
      `  ${fmt(from).padStart(5)} → ${fmt(step.connections).padStart(
        5,
      )} connections   ours RSS ${kb(step.marginalRss)} (heap ${kb(
        step.marginalHeap,
      )}, external ${kb(step.marginalExternal)}) per added connection, ${kb(
        step.averageRss,
      )} on average since the baseline   official RSS ${kb(
        theirs.marginalRss,
      )} (heap ${kb(theirs.marginalHeap)}), ${kb(theirs.averageRss)} on average   ours ÷ official ${(
        step.marginalRss / theirs.marginalRss
      ).toFixed(2)}×   [load ${loadAverage()}]`,
    );
    from = step.connections;
  }
  const last = ours.at(-1)!;
  console.log(
    `  target: under 50 KB of RSS per idle connection, the marginal cost of the last step (${fmt(
      last.connections,
    )} connections): ${met(last.marginalRss < 50 * 1024)}`,
  );
}

assertCompiledSdkIsFresh();
console.log(
  `remote transports on 127.0.0.1, ours (Agent + listenAcp, Client + connectHttp/connectWebSocket) against the official SDK 2.4.0 (agent app + AcpServer, createHttpStream/createWebSocketStream); every agent a child process${
    small ? '; BENCH_SCALE=small' : ''
  }`,
);
const agents = {
  ours: await startListeningAgent(OUR_AGENT),
  official: await startListeningAgent(OFFICIAL_AGENT),
};
try {
  const driven = await connectAll(agents);
  for (const d of driven)
    for (let i = 0; i < Math.min(100, SAMPLES); i += 1) await d.client.receipt('warm up');
  console.log(
    `insertion-receipt latency, ${SAMPLES} prompts per client, no turn running [load ${loadAverage()}]`,
  );
  printReceipts(driven, await receipts(driven));
  console.log(`streaming throughput into the client, ${ROUNDS} round(s), medians`);
  await throughput(driven);
  for (const d of driven) await d.client.close();
} finally {
  await agents.ours.stop();
  await agents.official.stop();
}
console.log(
  `idle Streamable HTTP connections (initialize + a session, both SSE streams open), opened in steps on one fresh agent process per implementation, its growth per connection after a full GC`,
);
await idle();
process.exit(0);
