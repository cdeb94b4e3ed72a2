/**
 * One cell of the capacity benchmark (bench/capacity.ts): one implementation, one transport, N
 * sessions. A fresh agent process (bench/remote-agent.ts under `listenAcp`, the official agent app
 * under its `AcpServer`, or our agent on stdio behind `acp-kit serve`), its resident memory read;
 * then `clients` load-generator processes (bench/capacity-client.ts) open the sessions between
 * them, a share of them with a second client; all stream (bench/paced-turn.ts); after a warm-up
 * every client marks, and again at the end of the measuring window. Over the window: chunks taken
 * in, the agent's CPU time from /proc (its whole process tree: serve and its agents), the
 * clients' CPU time, the machine's busy time (/proc/stat), chunk latency and receipt histograms,
 * and at its end the agent's resident memory. Then the drain: no new prompts, every turn ends,
 * and the counts of the whole run are compared — chunks taken in against what the agent says it
 * sent (the count in each session's last chunk, and the agent's own total where it can be asked).
 * With `allocations`, the agent samples what it allocates over the window (its CPU figures then
 * include the sampler's cost). Every process is stopped at the end and on failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AgentMemory } from './agent-memory.js';
import type { AllocationReport } from './allocation-sampling.js';
import type {
  CapacityProfile,
  Drained,
  FromClient,
  Implementation,
  Mark,
  ToClient,
} from './capacity-protocol.js';
import { LatencyHistogram } from './latency-histogram.js';
import { type ListeningAgent, startListeningAgent } from './listening-agent.js';
import { loadAverage } from './load-average.js';
import { ownCpuMs } from './process-cpu.js';
import { processTree, treeCpuMs, treeRssBytes } from './process-tree.js';
import { type RssParts, rssParts } from './rss-parts.js';

const CWD = fileURLToPath(new URL('..', import.meta.url));
const CLIENT = fileURLToPath(new URL('./capacity-client.ts', import.meta.url));
const SCRIPTS: Record<Implementation, string> = {
  ours: fileURLToPath(new URL('./remote-agent.ts', import.meta.url)),
  official: fileURLToPath(new URL('./official-remote-agent.ts', import.meta.url)),
};

/** What a cell runs. */
export interface CellOptions {
  implementation: Implementation;
  profile: CapacityProfile;
  sessions: number;
  /** Load-generator processes. */
  clients: number;
  /** The share of sessions (0–1) with a second client (not for `serve`: one agent process per connection). */
  secondShare: number;
  warmupMs: number;
  windowMs: number;
  /** Record the agent's CPU profile (`--cpu-prof`) into this directory. */
  cpuProfileDir?: string;
  /** Sample the agent's allocations over the window (bench/allocation-sampling.ts). */
  allocations?: boolean;
}

/** What a cell measured. */
export interface CellReport {
  implementation: Implementation;
  profile: CapacityProfile;
  sessions: number;
  secondClients: number;
  clientProcesses: number;
  windowMs: number;
  /** Chunks taken in by every client over the window. */
  delivered: number;
  chunksPerSecond: number;
  /** The agent's CPU time (its process tree) over the window, ms. */
  agentCpuMs: number;
  agentCpuUsPerChunk: number;
  chunksPerAgentCoreSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  receipts: number;
  receiptP50Ms: number;
  receiptP99Ms: number;
  /** The agent's resident memory before the sessions and at the end of the window (bytes). */
  rssBefore: number;
  rssAfter: number;
  rssPerSession: number;
  /**
   * The agent's heap growth per session after a full GC (what it holds live; RSS also counts the
   * garbage a heap sized for its load has not returned); NaN behind serve (several processes).
   */
  heapPerSession: number;
  /** The RSS growth per session before that GC, by part (bench/rss-parts.ts); not behind serve. */
  rssParts: RssParts | undefined;
  /** CPU time of the load generators and of this process over the window, ms. */
  clientsCpuMs: number;
  /** The busiest load generator's CPU ÷ wall: near 1, the clients and not the agent may set the pace and the latency. */
  busiestClientShare: number;
  benchCpuMs: number;
  cores: number;
  /** (agent + clients + this process) CPU ÷ (cores × wall). */
  ownShareOfCores: number;
  /** The machine's busy share of all cores over the window (/proc/stat), every process counted. */
  machineBusy: number;
  cpuBound: boolean;
  load: string;
  /** The drain's check of the whole run. */
  check: {
    /** Chunks the agent says it sent: the count each session's last chunk carries, summed. */
    agentSent: number;
    /** The agent process's own total, asked over IPC (NaN behind serve). */
    agentTotal: number;
    /** agentSent counted once per client of each session. */
    expected: number;
    delivered: number;
    /** expected − delivered after every turn ended: what was still in flight (0 when nothing was lost). */
    inFlight: number;
    irregular: number;
    withoutReceipt: number;
    behind: number;
    /** Sessions lost to a connection error or a turn that never ended, left out of the counts; why. */
    lost: number;
    lostReasons: string[];
  };
  /** The agent's .cpuprofile, when asked for. */
  cpuProfileDir?: string;
  /** What the agent allocated over the window, when asked for. */
  allocations?: AllocationReport;
}

/** A load-generator process and the messages it sends. */
class LoadClient {
  readonly child: ChildProcess;
  readonly #waiting: {
    type: FromClient['type'];
    resolve(message: FromClient): void;
    reject(error: Error): void;
  }[] = [];
  #failure: Error | undefined;

  constructor() {
    this.child = spawn(process.execPath, ['--import', 'tsx', CLIENT], {
      cwd: CWD,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message: FromClient) => {
      if (message.type === 'failed')
        return this.#fail(new Error(`a load-generator client failed: ${message.message}`));
      const at = this.#waiting.findIndex((w) => w.type === message.type);
      if (at !== -1) this.#waiting.splice(at, 1)[0]!.resolve(message);
    });
    this.child.once('exit', (code, signal) =>
      this.#fail(new Error(`a load-generator client exited (${code ?? signal})`)),
    );
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
  }

  /** Sends `message` and resolves with the answer of type `answer`, or rejects after `timeoutMs`. */
  ask<T extends FromClient>(message: ToClient, answer: T['type'], timeoutMs: number): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`a load-generator client did not answer ${message.type} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.#waiting.push({
        type: answer,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.send(message);
    });
  }

  /** Asks it to close its connections and exit; kills it if it has not a few seconds later. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.send({ type: 'close' } satisfies ToClient);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The machine's busy and total CPU time so far (jiffies, all cores), from /proc/stat. */
function machineTimes(): { busy: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function startAgent(options: CellOptions): Promise<ListeningAgent> {
  if (options.profile === 'serve') {
    if (options.implementation !== 'ours')
      throw new Error('the official SDK has no stdio-behind-serve counterpart');
    // Loaded only for this profile: the SDK's tests run the other two and never reach the CLI.
    const { startServedAgent } = await import('./serve-agent.js');
    return startServedAgent();
  }
  const flags = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  return startListeningAgent(SCRIPTS[options.implementation], flags);
}

/** Runs one cell; every process it started is stopped before it settles. */
export async function runCapacityCell(options: CellOptions): Promise<CellReport> {
  const agent = await startAgent(options);
  const clients: LoadClient[] = [];
  try {
    // Let the fresh process settle (tsx, JIT of startup code) before its baseline.
    await sleep(200);
    const rssBefore = treeRssBytes(processTree(agent.pid));
    // Behind serve the agent processes are serve's children: no IPC channel, no answer.
    const memory = (): Promise<AgentMemory | undefined> => agent.memory().catch(() => undefined);
    const memoryBefore = await memory();
    const seconds = options.profile === 'serve' ? 0 : Math.round(options.sessions * options.secondShare);
    const processes = Math.max(1, Math.min(options.clients, options.sessions));
    for (let i = 0; i < processes; i += 1) clients.push(new LoadClient());
    const share = (total: number, i: number): number =>
      Math.floor(total / processes) + (i < total % processes ? 1 : 0);
    const openBound = 120_000 + options.sessions * 100;
    await Promise.all(
      clients.map((client, i) =>
        client.ask(
          {
            type: 'open',
            implementation: options.implementation,
            profile: options.profile,
            endpoint: agent.endpoint,
            sessions: share(options.sessions, i),
            seconds: share(seconds, i),
            oneConnection: options.profile === 'serve',
            seed: i + 1,
          },
          'opened',
          openBound,
        ),
      ),
    );
    for (const client of clients) client.child.send({ type: 'run' } satisfies ToClient);
    await sleep(options.warmupMs);

    const markAll = (): Promise<Mark[]> =>
      Promise.all(clients.map((client) => client.ask<Mark>({ type: 'mark' }, 'mark', 60_000)));
    const tree = processTree(agent.pid);
    const before = await markAll();
    if (options.allocations) {
      if (!agent.startAllocations)
        throw new Error(`allocations cannot be sampled in a ${options.profile} cell`);
      await agent.startAllocations();
    }
    const agentCpu0 = treeCpuMs(tree);
    const benchCpu0 = ownCpuMs();
    const machine0 = machineTimes();
    const start = performance.now();
    await sleep(options.windowMs);
    const after = await markAll();
    const agentCpu1 = treeCpuMs(tree);
    const wallMs = performance.now() - start;
    const benchCpu1 = ownCpuMs();
    const machine1 = machineTimes();
    const rssAfter = treeRssBytes(tree);
    const load = loadAverage();
    const allocations = options.allocations ? await agent.stopAllocations?.() : undefined;
    // After the window's figures: the full GC this asks for pauses the agent.
    const memoryAfter = await memory();

    const latency = new LatencyHistogram();
    const receipts = new LatencyHistogram();
    let delivered = 0;
    for (const mark of after) {
      delivered += mark.delivered;
      latency.merge(mark.latency);
      receipts.merge(mark.receipts);
    }
    const clientsCpuMs = after.reduce((sum, m, i) => sum + m.cpuMs - before[i]!.cpuMs, 0);
    const busiestClientShare = Math.max(...after.map((m, i) => (m.cpuMs - before[i]!.cpuMs) / wallMs));
    const agentCpuMs = agentCpu1 - agentCpu0;
    const benchCpuMs = benchCpu1 - benchCpu0;
    const cores = os.availableParallelism();
    const ownShareOfCores = (agentCpuMs + clientsCpuMs + benchCpuMs) / (cores * wallMs);
    const machineBusy = (machine1.busy - machine0.busy) / (machine1.total - machine0.total);

    const drained = await Promise.all(
      clients.map((client) => client.ask<Drained>({ type: 'drain' }, 'drained', 120_000)),
    );
    const sum = (key: keyof Omit<Drained, 'type' | 'lostReasons'>): number =>
      drained.reduce((total, d) => total + d[key], 0);
    let agentTotal = Number.NaN;
    if (options.profile !== 'serve') agentTotal = (await agent.memory()).chunksSent ?? Number.NaN;
    const expected = sum('expected');
    return {
      implementation: options.implementation,
      profile: options.profile,
      sessions: options.sessions,
      secondClients: seconds,
      clientProcesses: processes,
      windowMs: wallMs,
      delivered,
      chunksPerSecond: delivered / (wallMs / 1000),
      agentCpuMs,
      agentCpuUsPerChunk: (agentCpuMs * 1000) / delivered,
      chunksPerAgentCoreSecond: delivered / (agentCpuMs / 1000),
      latencyP50Ms: latency.percentile(50),
      latencyP99Ms: latency.percentile(99),
      receipts: receipts.count,
      receiptP50Ms: receipts.percentile(50),
      receiptP99Ms: receipts.percentile(99),
      rssBefore,
      rssAfter,
      rssPerSession: (rssAfter - rssBefore) / options.sessions,
      heapPerSession:
        ((memoryAfter?.heapUsed ?? Number.NaN) - (memoryBefore?.heapUsed ?? Number.NaN)) / options.sessions,
      rssParts: rssParts(memoryBefore, memoryAfter, options.sessions),
      clientsCpuMs,
      busiestClientShare,
      benchCpuMs,
      cores,
      ownShareOfCores,
      machineBusy,
      cpuBound: machineBusy >= 0.9 || ownShareOfCores >= 0.9,
      load,
      check: {
        agentSent: sum('agentSent'),
        agentTotal,
        expected,
        delivered: sum('delivered'),
        inFlight: expected - sum('delivered'),
        irregular: sum('irregular'),
        withoutReceipt: sum('withoutReceipt'),
        behind: sum('behind'),
        lost: sum('lost'),
        lostReasons: [...new Set(drained.flatMap((d) => d.lostReasons))],
      },
      ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
      ...(allocations ? { allocations } : {}),
    };
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    await agent.stop();
  }
}
