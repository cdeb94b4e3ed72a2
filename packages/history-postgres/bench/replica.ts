/**
 * One replica of the fan-out benchmark (a child process of fanout.ts): opens the shared
 * PostgresSessionLog, follows every session it does not own, and after "go" on stdin appends to
 * the sessions it owns at a fixed rate. Each appended update carries its send time
 * (process.hrtime, CLOCK_MONOTONIC: one clock for every process on the machine); it reports the
 * delivery latency of every entry it received, split into entries appended here (local fan-out)
 * and elsewhere (cross-replica fan-out), as one JSON line on stdout.
 */
import { createInterface } from 'node:readline';
import type { LogEntry } from '@acp-kit/sdk';
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
// Warm-up, not measured: a few appends to every owned session (pooled connections opened,
// statements prepared, code compiled), and their delivery here.
for (let round = 0; round < 3; round++) {
  await Promise.all(
    owned.map((sessionId) =>
      log.append(sessionId, [
        {
          update: {
            sessionUpdate: 'agent_message_chunk',
            messageId: 'm',
            content: { type: 'text', text: 'warm-up' },
          } as unknown as Update,
        },
      ]),
    ),
  );
}
const warmDeadline = Date.now() + 60_000;
// Every session gets three warm-up entries (from the replica owning it): wait until all are here.
for (let s = 0; s < sessions; s++) {
  const id = `s${s}`;
  while ((delivered.get(id) ?? 0) < 3 && Date.now() < warmDeadline)
    await new Promise((r) => setTimeout(r, 20));
}
process.stdout.write('ready\n');
const stdin = createInterface({ input: process.stdin });
const nextLine = () => new Promise<void>((resolve) => stdin.once('line', () => resolve()));
await nextLine();
const cpuBefore = process.cpuUsage();

// Each owned session gets `perSecond` appends a second, spread evenly over the interval.
const intervalMs = 1000 / perSecond;
const end = Date.now() + durationMs;
let sent = 0;
let n = 0;
await Promise.all(
  owned.map(async (sessionId, i) => {
    await new Promise((resolve) => setTimeout(resolve, (intervalMs * i) / owned.length));
    while (Date.now() < end) {
      const started = Date.now();
      const update = {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm',
        content: { type: 'text', text: `chunk ${n++}` },
        _meta: { t: now(), r: index },
      } as unknown as Update;
      await log.append(sessionId, [{ update }]);
      sent++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (Date.now() - started))));
    }
  }),
);
// Every replica has stopped appending once the parent says "drain": wait until this replica's
// followers have reached every session's last entry, however far behind a loaded machine left them.
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write('done\n');
await nextLine();
const drainDeadline = Date.now() + 120_000;
for (let s = 0; s < sessions; s++) {
  const id = `s${s}`;
  const last = (await log.getSession(id))?.lastSeq ?? 0;
  while ((delivered.get(id) ?? 0) < last && Date.now() < drainDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
process.stdout.write(
  `${JSON.stringify({ index, sent, local, remote, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
);
await log.close();
