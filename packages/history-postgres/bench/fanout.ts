/**
 * Cross-replica fan-out latency: REPLICAS processes share one PostgresSessionLog schema and
 * SESSIONS sessions; each owns a third and appends to it at RATE appends per session per second,
 * and follows all of them. Prints delivery latency p50/p99 of entries appended on another replica
 * (LISTEN/NOTIFY, then a read) against the baseline of entries appended on the same replica
 * (handed over in process), measured in the same run, after an unmeasured warm-up (the same
 * pattern for two intervals, delivered everywhere: pooled connections open, statements prepared
 * and planned, code compiled).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { PostgresSessionLog } from '../src/index.js';
import { cpuSpent, fixed, type Latencies, latencies, load, serverCpuMs } from './stats.js';

export interface FanoutOptions {
  readonly url: string;
  /** The local PostgreSQL server's PID, to report its CPU time. */
  readonly postmasterPid?: number;
  readonly replicas?: number;
  readonly sessions?: number;
  readonly rate?: number;
  readonly durationMs?: number;
}

export interface FanoutResult {
  readonly appends: number;
  readonly remote: Latencies;
  readonly local: Latencies;
  /** Wall time of the measured window (from "go" until every replica stopped appending). */
  readonly wallMs: number;
  /** CPU time of each replica process in that window. */
  readonly replicaCpuMs: readonly number[];
  readonly serverCpuMs: number | undefined;
  readonly load: string;
}

export async function fanout(options: FanoutOptions): Promise<FanoutResult> {
  const replicas = options.replicas ?? 3;
  const sessions = options.sessions ?? 300;
  const rate = options.rate ?? 2;
  const durationMs = options.durationMs ?? 10_000;
  const schema = `bench_fanout_${Date.now().toString(36)}`;
  const setup = await PostgresSessionLog.open(options.url, { schema });
  for (let s = 0; s < sessions; s++) await setup.createSession({ sessionId: `s${s}`, cwd: '/bench' });
  await setup.close();

  const script = fileURLToPath(new URL('./replica.ts', import.meta.url));
  const children: ChildProcess[] = [];
  const readers: (() => Promise<string>)[] = [];
  for (let i = 0; i < replicas; i++) {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: {
        ...process.env,
        BENCH_URL: options.url,
        BENCH_SCHEMA: schema,
        BENCH_INDEX: String(i),
        BENCH_REPLICAS: String(replicas),
        BENCH_SESSIONS: String(sessions),
        BENCH_RATE: String(rate),
        BENCH_DURATION_MS: String(durationMs),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(child);
    const queue: string[] = [];
    const waiting: ((line: string) => void)[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else queue.push(line);
    });
    readers.push(
      () =>
        new Promise<string>((resolve, reject) => {
          const queued = queue.shift();
          if (queued !== undefined) return resolve(queued);
          waiting.push(resolve);
          child.once('exit', (code) => reject(new Error(`replica ${i} exited (${code})`)));
        }),
    );
  }
  const all = async (expected?: string) => {
    const got = await Promise.all(readers.map((read) => read()));
    if (expected !== undefined && got.some((line) => line !== expected)) {
      throw new Error(`expected "${expected}" from every replica, got ${JSON.stringify(got)}`);
    }
    return got;
  };
  const tell = (line: string) => {
    for (const child of children) child.stdin!.write(`${line}\n`);
  };
  try {
    await all('ready');
    const serverBefore = serverCpuMs(options.postmasterPid);
    const started = performance.now();
    tell('go');
    await all('done'); // every replica stopped appending
    const wallMs = performance.now() - started;
    const serverAfter = serverCpuMs(options.postmasterPid);
    const loadAtEnd = load();
    tell('drain');
    const results = (await all()).map(
      (line) => JSON.parse(line) as { sent: number; local: number[]; remote: number[]; cpuMs: number },
    );
    const remote = results.flatMap((r) => r.remote);
    const local = results.flatMap((r) => r.local);
    return {
      appends: results.reduce((sum, r) => sum + r.sent, 0),
      remote: latencies(remote),
      local: latencies(local),
      wallMs,
      replicaCpuMs: results.map((r) => r.cpuMs),
      serverCpuMs:
        serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
      load: loadAtEnd,
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

export function printFanout(result: FanoutResult, replicas: number, sessions: number, rate: number): void {
  console.log(
    `\nCross-replica fan-out: ${replicas} replica processes, ${sessions} sessions, ${rate} appends/s each ` +
      `(${result.appends} appends, every entry delivered to all ${replicas} replicas)`,
  );
  console.log(
    `  other replica (NOTIFY + read): p50 ${fixed(result.remote.p50)} ms  p99 ${fixed(result.remote.p99)} ms  (${result.remote.count} deliveries)`,
  );
  console.log(
    `  same replica (baseline):       p50 ${fixed(result.local.p50)} ms  p99 ${fixed(result.local.p99)} ms  (${result.local.count} deliveries)`,
  );
  console.log(
    `  ratio other/same: p50 ${fixed(result.remote.p50 / result.local.p50)}×  p99 ${fixed(result.remote.p99 / result.local.p99)}×   target: other-replica p99 < 20 ms → ${result.remote.p99 < 20 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  wall ${fixed(result.wallMs / 1000)} s  CPU: replicas ${result.replicaCpuMs.map((ms) => cpuSpent(0, ms)).join(' + ')}  PostgreSQL server ${cpuSpent(0, result.serverCpuMs)}  load ${result.load}`,
  );
}
