/**
 * `npm run bench -w @acp-kit/history-postgres`: starts a throwaway PostgreSQL server (Debian's
 * binaries; set ACP_KIT_BENCH_POSTGRES_URL to use your own), then prints
 * - retained updates per second into the PostgreSQL session log against the SQLite one on the
 *   same stream, both in this process (appends awaited one at a time, and pipelined); the same
 *   with durable commits (synchronous_commit=on) for comparison;
 * - the same at the agent level, what `acp-kit agent` does: an agent process over stdio on SQLite,
 *   then on PostgreSQL (chunks written behind, as the PostgreSQL log suggests), replies of 20, 200
 *   and 2000 chunks in one session, and 32 sessions at once;
 * - cross-replica fan-out latency p50/p99 with 3 replica processes and 300 sessions (at 0.5 and
 *   at 2 appends per session per second), against same-replica delivery in the same run; and the
 *   same at the agent level: 3 agent processes with ownership, a client connection per replica
 *   following all 300 sessions, each session's owner streaming a reply (split into the chunks
 *   sent while the 300 prompts arrived and those sent after);
 * - failover time at the agent level: SIGKILL of the replica owning a session mid-turn until a
 *   survivor ended the turn and answered a new prompt.
 * Beside each figure: wall time, CPU time (this process, agent or replica processes, the
 * PostgreSQL server) and the machine's load average.
 * The server runs with fsync on and synchronous_commit off (a deployment choice): a commit
 * survives a crash of the agent and, like SQLite's WAL mode with synchronous=NORMAL (the SQLite
 * store's default), may lose the last commits — never consistency — on a power cut.
 */
import { availableParallelism } from 'node:os';
import { startThrowawayPostgres } from '../src/testing/index.js';
import { agentFanout, printAgentFanout } from './agent-fanout.js';
import { agentThroughput, printAgentThroughput } from './agent-throughput.js';
import { failover, printFailover } from './failover.js';
import { fanout, printFanout } from './fanout.js';
import { cpuSpent, load, ownCpuMs, serverCpuMs } from './stats.js';
import { printThroughput, throughput } from './throughput.js';

const external = process.env.ACP_KIT_BENCH_POSTGRES_URL;
const server = external
  ? undefined
  : await startThrowawayPostgres({
      settings: { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'off' },
    });
const url = external ?? server!.url;
const pid = server?.pid;
const section = (name: string) => console.log(`\n[${name}: load average ${load()}]`);
try {
  const cpuAtStart = ownCpuMs();
  const serverAtStart = serverCpuMs(pid);
  const started = performance.now();
  console.log(`Machine load average (1/5/15 min) at start: ${load()} on ${availableParallelism()} cores`);
  console.log(
    `PostgreSQL: ${external ? 'ACP_KIT_BENCH_POSTGRES_URL' : 'throwaway server (fsync on, synchronous_commit off)'}; Node ${process.version}`,
  );
  section('session log throughput');
  printThroughput(
    await throughput(
      url,
      [
        { sessions: 1, turns: 100 },
        { sessions: 32, turns: 10 },
      ],
      pid,
    ),
  );
  section('session log throughput, durable commits');
  const durable = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c synchronous_commit=on')}`;
  printThroughput(
    await throughput(
      durable,
      [
        { sessions: 1, turns: 20 },
        { sessions: 32, turns: 10 },
      ],
      pid,
      ['awaited'],
    ),
    'The same, awaited, with PostgreSQL commits flushed to disk before they return (synchronous_commit=on; SQLite as above, synchronous=NORMAL — not like for like):',
  );
  section('agent-level throughput');
  printAgentThroughput(
    await agentThroughput(url, pid, [
      { sessions: 1, turns: 30, chunks: 20 },
      { sessions: 1, turns: 6, chunks: 200 },
      { sessions: 1, turns: 2, chunks: 2000 },
      { sessions: 32, turns: 4, chunks: 20 },
    ]),
  );
  const replicas = 3;
  const sessions = 300;
  // Appends per session per second (all 300 sessions): latency measurements, not a saturation
  // test — 150 and 600 appends a second in all.
  const rates = (process.env.BENCH_RATE ?? '0.5,2').split(',').map(Number);
  for (const rate of rates) {
    section(`fan-out, ${rate} appends/s per session`);
    printFanout(
      await fanout({ url, postmasterPid: pid, replicas, sessions, rate, durationMs: 10_000 }),
      replicas,
      sessions,
      rate,
    );
  }
  section('fan-out at the agent level');
  printAgentFanout(
    await agentFanout({ url, postmasterPid: pid, replicas, sessions, rate: 0.5, durationMs: 10_000 }),
    replicas,
    sessions,
    0.5,
  );
  section('failover');
  printFailover(await failover(url, 2000, 5), 2000);
  console.log(
    `\nWhole run: wall ${((performance.now() - started) / 1000).toFixed(1)} s, CPU of this process ${cpuSpent(cpuAtStart, ownCpuMs())}, PostgreSQL server ${cpuSpent(serverAtStart, serverCpuMs(pid))}`,
  );
  console.log(`Machine load average at end: ${load()} (latency figures include waiting for a CPU)`);
} finally {
  await server?.stop();
}
