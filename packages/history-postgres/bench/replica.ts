/**
 * One replica of the fan-out benchmark (a child process of fanout.ts): opens the shared
 * PostgresSessionLog, follows every session it does not own, and after "go" on stdin appends to
 * the sessions it owns at a fixed rate. Each appended update carries its send time
 * (process.hrtime, CLOCK_MONOTONIC: one clock for every process on the machine); it reports the
 * delivery latency of every entry it received, split into entries appended here (local fan-out)
 * and elsewhere (cross-replica fan-out), as one JSON line on stdout.
 */
import { createInterface } from 'node:readline';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import { PostgresSessionLog } from '../src/index.js';

const url = process.env.BENCH_URL!;
const schema = process.env.BENCH_SCHEMA!;
const index = Number(process.env.BENCH_INDEX);
const replicas = Number(process.env.BENCH_REPLICAS);
const sessions = Number(process.env.BENCH_SESSIONS);
const perSecond = Number(process.env.BENCH_RATE);
const durationMs = Number(process.env.BENCH_DURATION_MS);

type Update = LogEntry['update'];
const now = () => Number(process.hrtime.bigint()) / 1e6;

const log = await PostgresSessionLog.open(url, { schema, maxConnections: 8 });
const local: number[] = [];
const remote: number[] = [];
const owned: string[] = [];
const delivered = new Map<string, number>();
for (let s = 0; s < sessions; s++) {
  const id = `s${s}`;
  const mine = s % replicas === index;
  if (mine) owned.push(id);
  // Every replica follows every session: its own ones (local fan-out, the baseline) and the others'.
  log.subscribe(id, 0, {
    entries(batch) {
      const at = now();
      delivered.set(id, batch.at(-1)!.seq);
      for (const entry of batch) {
        const meta = (entry.update as { _meta?: { t?: number; r?: number } })._meta;
        if (meta?.t === undefined) continue;
        (meta.r === index ? local : remote).push(at - meta.t);
      }
    },
    error(error) {
      // Closing the log at the end ends every subscription; only an earlier end is worth reporting.
      if ((error as { code?: unknown }).code === 'closed') return;
      console.error(`replica ${index}: subscription ended: ${String(error)}`);
    },
  });
}
await new Promise((resolve) => setTimeout(resolve, 500)); // subscriptions listening

const intervalMs = 1000 / perSecond;
let n = 0;
/**
 * Each owned session gets `perSecond` appends a second, spread evenly over the interval, for
 * `forMs`; with `measured`, each update carries its send time and replica. Returns the appends made.
 */
async function appendAtRate(forMs: number, measured: boolean): Promise<number> {
  const end = Date.now() + forMs;
  let made = 0;
  await Promise.all(
    owned.map(async (sessionId, i) => {
      await new Promise((resolve) => setTimeout(resolve, (intervalMs * i) / owned.length));
      while (Date.now() < end) {
        const started = Date.now();
        const update = {
          sessionUpdate: 'agent_message_chunk',
          messageId: 'm',
          content: { type: 'text', text: `chunk ${n++}` },
          ...(measured ? { _meta: { t: now(), r: index } } : {}),
        } as unknown as Update;
        await log.append(sessionId, [{ update }]);
        made++;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (Date.now() - started))));
      }
    }),
  );
  return made;
}

/** Waits until this replica's followers have reached every session's last entry. */
async function caughtUp(deadline: number): Promise<void> {
  for (let s = 0; s < sessions; s++) {
    const id = `s${s}`;
    const last = (await log.getSession(id))?.lastSeq ?? 0;
    while ((delivered.get(id) ?? 0) < last && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

// Warm-up, not measured: the measured pattern for two intervals (every pooled connection opened
// and its statements prepared and planned, code compiled), then this replica's own appends
// delivered here; "ready" once every replica got that far.
await appendAtRate(2 * intervalMs, false);
await caughtUp(Date.now() + 60_000);
process.stdout.write('ready\n');
const stdin = createInterface({ input: process.stdin });
const nextLine = () => new Promise<void>((resolve) => stdin.once('line', () => resolve()));
await nextLine();
const cpuBefore = process.cpuUsage();
const sent = await appendAtRate(durationMs, true);
// Every replica has stopped appending once the parent says "drain": wait until this replica's
// followers have reached every session's last entry, however far behind a loaded machine left them.
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write('done\n');
await nextLine();
await caughtUp(Date.now() + 120_000);
process.stdout.write(
  `${JSON.stringify({ index, sent, local, remote, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
);
await log.close();
