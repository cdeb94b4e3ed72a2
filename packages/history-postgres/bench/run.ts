/**
 * `npm run bench -w @acp-kit/history-postgres`: starts a throwaway PostgreSQL server (Debian's
 * binaries; set ACP_KIT_BENCH_POSTGRES_URL to use your own), then prints
 * - retained updates per second into the PostgreSQL session log against the SQLite one on the
 *   same stream (appends awaited one at a time, and pipelined);
 * - cross-replica fan-out latency p50/p99 with 3 replica processes and 300 sessions, against
 *   same-replica delivery in the same run;
 * - failover time at the agent level: SIGKILL of the replica owning a session mid-turn until a
 *   survivor ended the turn and answered a new prompt.
 * The server runs with fsync on and synchronous_commit off: a commit survives a crash of the agent
 * and (as SQLite's WAL mode with synchronous=NORMAL, the SQLite store's default) may lose the last
 * commits — never consistency — on a power cut.
 */
import { availableParallelism, loadavg } from 'node:os';
import { startThrowawayPostgres } from '../src/testing/index.js';
import { failover, printFailover } from './failover.js';
import { fanout, printFanout } from './fanout.js';
import { printThroughput, throughput } from './throughput.js';

const external = process.env.ACP_KIT_BENCH_POSTGRES_URL;
const server = external
  ? undefined
  : await startThrowawayPostgres({
      settings: { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'off' },
    });
const url = external ?? server!.url;
try {
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
  console.log(`Machine load average (1/5/15 min) at start: ${load()} on ${availableParallelism()} cores`);
  console.log(
    `PostgreSQL: ${external ? 'ACP_KIT_BENCH_POSTGRES_URL' : 'throwaway server (fsync on, synchronous_commit off)'}; Node ${process.version}\n`,
  );
  printThroughput(
    await throughput(url, [
      { sessions: 1, turns: 100 },
      { sessions: 32, turns: 10 },
    ]),
  );
  const replicas = 3;
  const sessions = 300;
  // Appends per session per second (all 300 sessions): a latency measurement, not a saturation test.
  const rate = Number(process.env.BENCH_RATE ?? 0.5);
  printFanout(await fanout({ url, replicas, sessions, rate, durationMs: 10_000 }), replicas, sessions, rate);
  printFailover(await failover(url, 2000, 5), 2000);
  console.log(`\nMachine load average at end: ${load()} (latency figures include waiting for a CPU)`);
} finally {
  await server?.stop();
}
