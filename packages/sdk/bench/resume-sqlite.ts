/**
 * Resuming a session with a long retained history, end to end as a user does it: the agent is a
 * real child process (bench/resume-agent.ts: our Agent on a SqliteHistoryStore file, over stdio,
 * schema validation on) and the client sends `session/resume` with `replayFrom: start`, timed to
 * the response (the agent answers after the replay, so every update has arrived by then).
 *
 * Three clients resume the same file, one after another in the same runner process, each against
 * a fresh agent process:
 * - ours: spawnTransport → Connection (schema validator) → Client → ConversationStore;
 * - official SDK 2.4.0 experimental v2: ndJsonStream over the child's pipes → its client
 *   connection, counting `session/update` notifications (it validates each with its zod schema);
 * - JSON.parse: reads the child's stdout line by line and only `JSON.parse`s each — the least any
 *   client can do, so the agent's share of the time shows.
 * Ratios are ours against each baseline from the same runner, in wall time and in CPU time (both
 * processes: client + agent, from process.cpuUsage and /proc/<pid>/stat), so a loaded machine
 * that stretches wall time does not mislead.
 *
 * Memory: each runner is a fresh process started with --expose-gc and measures ours first. It runs
 * gc() twice before the resume and takes RSS as the baseline, then samples RSS every 1000 applied
 * updates and every 10 ms, keeping the maximum. The agent's peak is its VmHWM (/proc/<pid>/status).
 * Half the messages are agent replies retained as streamed (3 blocks). Two agent settings run: the
 * default replay (`full`: every message as one update) and `as-retained` (such a reply replays as a
 * reset plus one chunk per block, 2.5 updates per message on average).
 * Sizes: BENCH_SIZES (default 10 000 and 100 000 messages), BENCH_RUNS runners per size and setting
 * (default 2). Prints one line per figure; asserts nothing.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { client as officialClient, ndJsonStream } from '@agentclientprotocol/sdk/experimental/v2';
import { Readable, Writable } from 'node:stream';
import type { SessionNotification } from '@acp-kit/schema';
import { Client, type ClientConnection, Connection, ConversationStore, spawnTransport } from '@acp-kit/sdk';
import { historyFile, populate, RESUME_SESSION } from './sqlite-history.js';

type Style = 'as-retained' | 'full';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const AGENT = fileURLToPath(new URL('./resume-agent.ts', import.meta.url));
const CWD = fileURLToPath(new URL('..', import.meta.url));
/** `BENCH_BASELINES=0` runs ours alone (for profiling). */
const BASELINES = process.env.BENCH_BASELINES !== '0';
/** Extra Node flags for the agent processes (for example `--cpu-prof`), space-separated. */
const AGENT_FLAGS = (process.env.BENCH_AGENT_FLAGS ?? '').split(' ').filter(Boolean);
const agentArgs = (file: string, style: Style): string[] => [
  ...AGENT_FLAGS,
  '--import',
  'tsx',
  AGENT,
  file,
  style,
];

/** CPU time (user + system) of another process so far, in ms, from /proc (Linux). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state, field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** Resident memory of another process now, in MB (VmRSS). */
function processRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** One client's resume. */
interface Timing {
  ms: number;
  /** This (client) process's CPU during the resume. */
  clientCpuMs: number;
  /** The agent process's CPU during the resume. */
  agentCpuMs: number;
  /** The agent process's RSS when the resume started. */
  agentBaselineMb: number;
  /** The agent process's peak RSS during the resume (sampled every 10 ms). */
  agentPeakMb: number;
  /** `session/update` notifications received. */
  updates: number;
}

interface OursResult extends Timing {
  messages: number;
  baselineMb: number;
  peakMb: number;
  peakHeapMb: number;
}

interface RunResult {
  ours: OursResult;
  official?: Timing;
  parse?: Timing;
}

/** Times `resume` from its start to its end: wall clock, this process's CPU, the agent's CPU. */
async function timed(pid: number, resume: () => Promise<number>): Promise<Timing> {
  const agentBaselineMb = processRssMb(pid);
  let agentPeakMb = agentBaselineMb;
  const sample = (): void => {
    agentPeakMb = Math.max(agentPeakMb, processRssMb(pid));
  };
  const timer = setInterval(sample, 10);
  const agentStart = processCpuMs(pid);
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const updates = await resume();
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const agentCpuMs = processCpuMs(pid) - agentStart;
  clearInterval(timer);
  sample();
  return {
    ms,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    agentCpuMs,
    agentBaselineMb,
    agentPeakMb,
    updates,
  };
}

async function runOurs(file: string, style: Style): Promise<OursResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  let peak = 0;
  let peakHeap = 0;
  const sample = (): void => {
    const usage = process.memoryUsage();
    if (usage.rss > peak) peak = usage.rss;
    if (usage.heapUsed > peakHeap) peakHeap = usage.heapUsed;
  };
  let updates = 0;
  class SamplingStore extends ConversationStore {
    override apply(notification: SessionNotification): void {
      super.apply(notification);
      if (++updates % 1000 === 0) sample();
    }
  }
  const transport = spawnTransport(process.execPath, agentArgs(file, style), { cwd: CWD, name: 'agent' });
  const client = new Client(new Connection(transport) as ClientConnection, {
    info: { name: 'bench-client', version: '0.0.0' },
    store: new SamplingStore(),
  });
  await client.initialize();
  gc();
  gc();
  const baseline = process.memoryUsage().rss;
  peak = baseline;
  const timer = setInterval(sample, 10);
  const timing = await timed(transport.child.pid!, async () => {
    await client.resume(RESUME_SESSION, { cwd: '/repo', replay: true });
    return updates;
  });
  sample();
  clearInterval(timer);
  const messages = client.store.snapshot(RESUME_SESSION).messages.length;
  client.close();
  await transport.shutdown();
  const mb = (bytes: number): number => bytes / 2 ** 20;
  return { ...timing, messages, baselineMb: mb(baseline), peakMb: mb(peak), peakHeapMb: mb(peakHeap) };
}

function spawnAgent(file: string, style: Style): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, agentArgs(file, style), {
    cwd: CWD,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, exited };
}

async function runOfficial(file: string, style: Style): Promise<Timing> {
  const { child, exited } = spawnAgent(file, style);
  let updates = 0;
  const app = officialClient({ name: 'bench' }).onNotification('session/update', () => {
    updates += 1;
  });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const timing = await app.connectWith(stream, async (ctx) => {
    await ctx.request('initialize', { protocolVersion: 2, info: { name: 'bench', version: '0.0.0' } });
    return timed(child.pid!, async () => {
      await ctx.request('session/resume', {
        sessionId: RESUME_SESSION,
        cwd: '/repo',
        replayFrom: { type: 'start' },
      });
      return updates;
    });
  });
  child.stdin!.end();
  await exited;
  return timing;
}

/** The least a client can do: split the child's stdout into lines and JSON.parse each. */
async function runParse(file: string, style: Style): Promise<Timing> {
  const { child, exited } = spawnAgent(file, style);
  const send = (message: unknown): void => {
    child.stdin!.write(`${JSON.stringify(message)}\n`);
  };
  const answers = new Map<number, (value: unknown) => void>();
  let updates = 0;
  let pending = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const message = JSON.parse(line) as { id?: number; method?: string };
      if (message.method === 'session/update') updates += 1;
      else if (message.id !== undefined) answers.get(message.id)?.(message);
    }
  });
  const request = (id: number, method: string, params: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      answers.set(id, resolve);
      send({ jsonrpc: '2.0', id, method, params });
    });
  await request(1, 'initialize', { protocolVersion: 2, info: { name: 'bench', version: '0.0.0' } });
  const timing = await timed(child.pid!, async () => {
    await request(2, 'session/resume', {
      sessionId: RESUME_SESSION,
      cwd: '/repo',
      replayFrom: { type: 'start' },
    });
    return updates;
  });
  child.stdin!.end();
  await exited;
  return timing;
}

async function runner(size: number, style: Style): Promise<RunResult> {
  const file = historyFile(size);
  const ours = await runOurs(file, style);
  if (!BASELINES) return { ours };
  const official = await runOfficial(file, style);
  const parse = await runParse(file, style);
  return { ours, official, parse };
}

const self = fileURLToPath(import.meta.url);
const at = process.argv.indexOf('--run');
if (process.argv.includes('--populate')) {
  const size = Number(process.argv.at(-1));
  await populate(historyFile(size), size);
} else if (at !== -1) {
  const size = Number(process.argv[at + 1]);
  const style = process.argv[at + 2] === 'full' ? 'full' : 'as-retained';
  process.stdout.write(`${JSON.stringify(await runner(size, style))}\n`);
} else {
  const child = (...flags: string[]): string => {
    const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, ...flags], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 2 ** 24,
    });
    if (result.status !== 0) throw new Error(`${flags.join(' ')} failed with status ${result.status}`);
    return result.stdout;
  };
  const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  const ratio = (base: number, ours: number): string => `${(base / ours).toFixed(2)}×`;
  console.log(
    `resume with replay from SQLite over a child process (agent: our Agent on SqliteHistoryStore), ${RUNS} runners per row; load average ${load()}`,
  );
  for (const size of SIZES) {
    const file = historyFile(size);
    if (!existsSync(file)) {
      const start = performance.now();
      child('--populate', String(size));
      console.log(`  populated ${file} with ${size} messages in ${s(performance.now() - start)}`);
    }
    for (let i = 0; i < RUNS * 2; i += 1) {
      const style: Style = i % 2 === 0 ? 'full' : 'as-retained';
      const r = JSON.parse(child('--run', String(size), style)) as RunResult;
      const cpu = (t: Timing): number => t.clientCpuMs + t.agentCpuMs;
      const line = (label: string, t: Timing): string =>
        `    ${label.padEnd(10)} ${s(t.ms).padStart(8)} wall   CPU ${s(cpu(t))} (client ${s(t.clientCpuMs)} + agent ${s(t.agentCpuMs)})   agent peak RSS ${t.agentPeakMb.toFixed(0)} MB (+${(t.agentPeakMb - t.agentBaselineMb).toFixed(0)} MB)   [${t.updates} updates]`;
      const o = r.ours;
      console.log(
        `  ${size.toLocaleString('en-US')} messages, replay ${style}, runner ${Math.floor(i / 2) + 1} (load average ${load()}):`,
      );
      console.log(
        `${line('ours', o)}   client peak RSS ${o.peakMb.toFixed(0)} MB (baseline ${o.baselineMb.toFixed(0)} MB, +${(o.peakMb - o.baselineMb).toFixed(0)} MB; heap ${o.peakHeapMb.toFixed(0)} MB)   [${o.messages} messages in the store]`,
      );
      if (r.official !== undefined) {
        console.log(
          `${line('official', r.official)}   ours ${ratio(r.official.ms, o.ms)} faster in wall, ${ratio(cpu(r.official), cpu(o))} in CPU`,
        );
      }
      if (r.parse !== undefined) {
        console.log(
          `${line('JSON.parse', r.parse)}   ours ÷ JSON.parse: ${(o.ms / r.parse.ms).toFixed(2)}× wall, ${(cpu(o) / cpu(r.parse)).toFixed(2)}× CPU (client alone ${(o.clientCpuMs / r.parse.clientCpuMs).toFixed(2)}×)`,
        );
      }
      if (size === 100_000) {
        console.log(
          `    targets at 100 000: ours < 2 s wall (${s(o.ms)}), client and agent each < 300 MB peak RSS (${o.peakMb.toFixed(0)} MB, ${o.agentPeakMb.toFixed(0)} MB)`,
        );
      }
    }
  }
}
