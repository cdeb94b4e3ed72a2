/**
 * Insertion-receipt latency while a long turn is still streaming: our Agent (in process, over
 * createInProcessPair, schema validation on both ends) streams a reply of N agent_message_chunks
 * back to back; meanwhile our Client submits prompts one after another and times each from sending
 * `session/prompt` to its response. The agent inserts every prompt at once (the RFD allows inserting
 * during a running turn), so a receipt should not wait for the turn. Reported for two turn lengths
 * and with no turn running. Prints p50/p99; asserts nothing.
 *
 * On a shared machine the wall-clock tail is mostly time the main thread was not on a CPU. Nothing
 * on this in-process path sleeps, so a receipt during which Linux switched the main thread out
 * (/proc/thread-self/schedstat's timeslice count changed) was preempted. Each row therefore also
 * gives p99 over the receipts that were neither preempted nor overlapped by a garbage collection:
 * the cost of the receipt path itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import {
  Agent,
  type AgentConnection,
  type AgentSession,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
} from '@acp-kit/sdk';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);

interface Setup {
  client: Client;
  sessionId: string;
  /** Starts a turn of `chunks` chunks; resolves when it is idle again. */
  longTurn(chunks: number): Promise<void>;
}

async function setup(): Promise<Setup> {
  let session: AgentSession | undefined;
  const agent = new Agent({
    info: { name: 'bench-agent', version: '0.0.0' },
    onPrompt(prompt, context) {
      session = context.session;
      // Inserted at once, whether or not a turn is running.
      void prompt.insert();
    },
  });
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide) as AgentConnection);
  const client = new Client(new Connection(clientSide) as ClientConnection, {
    info: { name: 'bench-client', version: '0.0.0' },
  });
  await client.initialize();
  const sessionId = await client.newSession('/repo');
  await client.prompt(sessionId, [{ type: 'text', text: 'warm up' }]);
  const longTurn = async (chunks: number): Promise<void> => {
    const s = session!;
    await s.running();
    const reply = await s.agentMessage({ retain: false });
    for (let i = 0; i < chunks; i += 1) await reply.chunk({ type: 'text', text: `token ${i} ` });
    await s.idle('end_turn');
  };
  return { client, sessionId, longTurn };
}

/** Submits prompts back to back while `busy()` holds, timing each receipt. */
async function measure(
  { client, sessionId }: Setup,
  samples: number,
  busy: () => boolean,
  restart: () => void,
): Promise<Sample[]> {
  const out: Sample[] = [];
  while (out.length < samples) {
    if (!busy()) restart();
    const before = schedstat();
    const start = performance.now();
    await client.prompt(sessionId, [{ type: 'text', text: `prompt ${out.length}` }]);
    const end = performance.now();
    const after = schedstat();
    if (busy()) out.push({ start, end, preempted: after !== before });
  }
  return out;
}

interface Sample {
  start: number;
  end: number;
  /** The main thread was switched out at least once during the receipt. */
  preempted: boolean;
}

const SCHEDSTAT = '/proc/thread-self/schedstat';
const hasSchedstat = existsSync(SCHEDSTAT);

/** How many times the main thread has been put on a CPU so far ('' off Linux). */
function schedstat(): string {
  return hasSchedstat ? (readFileSync(SCHEDSTAT, 'utf8').trim().split(' ')[2] ?? '') : '';
}

const gcs: Array<[number, number]> = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcs.push([entry.startTime, entry.startTime + entry.duration]);
}).observe({ entryTypes: ['gc'] });

/** GC entries are delivered asynchronously; let them arrive before counting. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function scenario(label: string, chunks: number | null): Promise<void> {
  const bench = await setup();
  let running = false;
  let turns = 0;
  let chunksDone = 0;
  const restart = (): void => {
    if (chunks === null || running) return;
    running = true;
    turns += 1;
    void bench.longTurn(chunks).then(() => {
      running = false;
      chunksDone += chunks;
    });
  };
  const busy = (): boolean => (chunks === null ? true : running);
  await measure(bench, Math.min(200, SAMPLES), busy, restart); // warm up
  await settle();
  const gcFrom = gcs.length;
  const measured = await measure(bench, SAMPLES, busy, restart);
  await settle();
  const runGcs = gcs.slice(gcFrom);
  const inGc = (x: Sample): boolean => runGcs.some(([a, b]) => a < x.end && b > x.start);
  const ms = (xs: Sample[]): number[] => xs.map((x) => x.end - x.start).sort((a, b) => a - b);
  const wall = ms(measured);
  const clean = ms(measured.filter((x) => !x.preempted && !inGc(x)));
  const preempted = measured.filter((x) => x.preempted).length;
  const gcHit = measured.filter(inGc).length;
  const us = (ms: number): string => `${(ms * 1000).toFixed(0).padStart(5)} µs`;
  const turnInfo = chunks === null ? '' : `; ${turns} turn(s) started, ${chunksDone} chunks finished`;
  console.log(
    `  ${label.padEnd(26)} wall p50 ${us(percentile(wall, 50))}  p99 ${us(percentile(wall, 99))}  (target p99 < 1 ms)` +
      `   undisturbed p99 ${us(percentile(clean, 99))}` +
      `   [${preempted} preempted, ${gcHit} in one of ${runGcs.length} GCs${turnInfo}]`,
  );
  bench.client.close();
}

console.log(`insertion-receipt latency, ${SAMPLES} prompts per row, in process (createInProcessPair)`);
await scenario('no turn running', null);
await scenario('during a 1k-chunk turn', 1_000);
await scenario('during a 100k-chunk turn', 100_000);
