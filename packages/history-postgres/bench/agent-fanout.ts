/**
 * Cross-replica fan-out at the agent level, what clients of `acp-kit agent --history postgres://…`
 * see: REPLICAS agent processes (fanout-agent.ts: an SDK agent with PostgresSessionOwnership, over
 * stdio) share one schema and SESSIONS sessions, each created on (and owned by) replica
 * i % REPLICAS. This process holds one client connection per replica, and every connection
 * follows every session (created there, or resumed). Each session then gets one prompt at its
 * owner, whose reply streams a chunk every 1000/RATE ms carrying its send time; every client
 * records when the chunk reached it. Prints delivery latency p50/p99 of chunks that reached a
 * client of another replica (the owner appends, PostgreSQL notifies, that replica reads the rows
 * and sends them) against chunks that reached the owner's own client, measured in the same run,
 * after an unmeasured warm-up turn per session.
 */
import { fileURLToPath } from 'node:url';
import { Client, type ClientConnection, Connection, spawnTransport } from '@acp-kit/sdk';
import { PostgresSessionLog } from '../src/index.js';
import {
  cpuSpent,
  fixed,
  type Latencies,
  latencies,
  load,
  ownCpuMs,
  processCpuMs,
  serverCpuMs,
} from './stats.js';

export interface AgentFanoutOptions {
  readonly url: string;
  readonly postmasterPid?: number;
  readonly replicas?: number;
  readonly sessions?: number;
  /** Chunks per session per second. */
  readonly rate?: number;
  /** The sessions' prompts arrive spread evenly over this long (default 5 000 ms). */
  readonly promptsOverMs?: number;
  readonly durationMs?: number;
}

export interface AgentFanoutResult {
  readonly chunks: number;
  readonly promptsOverMs: number;
  /** Chunks sent once every prompt was in: the sessions streaming. */
  readonly remote: Latencies;
  readonly local: Latencies;
  /** Chunks sent while the prompts were still arriving (one per session over the first interval). */
  readonly remoteDuringPrompts: Latencies;
  readonly localDuringPrompts: Latencies;
  readonly wallMs: number;
  readonly replicaCpuMs: readonly (number | undefined)[];
  readonly driverCpuMs: number;
  readonly serverCpuMs: number | undefined;
  readonly load: string;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

export async function agentFanout(options: AgentFanoutOptions): Promise<AgentFanoutResult> {
  const replicas = options.replicas ?? 3;
  const sessions = options.sessions ?? 300;
  const rate = options.rate ?? 0.5;
  const durationMs = options.durationMs ?? 10_000;
  const promptsOverMs = options.promptsOverMs ?? 5_000;
  const schema = `bench_agent_fanout_${Date.now().toString(36)}`;
  // Migrate the schema once, before the replicas start.
  await (await PostgresSessionLog.open(options.url, { schema })).close();
  const script = fileURLToPath(new URL('./fanout-agent.ts', import.meta.url));
  // BENCH_PROFILE=<dir>: write a CPU profile of each replica process there.
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const transports = Array.from({ length: replicas }, (_, r) =>
    spawnTransport(
      process.execPath,
      [...profile, '--import', 'tsx', script, options.url, schema, `replica-${r}`],
      {
        onStderr: (text) => process.stderr.write(text),
      },
    ),
  );
  let measuring = false;
  /** When the last prompt of the measured turn was answered (hrtime ms; Infinity until then). */
  let promptsInAt = Number.POSITIVE_INFINITY;
  const local: number[] = [];
  const remote: number[] = [];
  const localDuringPrompts: number[] = [];
  const remoteDuringPrompts: number[] = [];
  /** Chunks each client received, per session (to know when a turn reached everyone). */
  const seen = Array.from({ length: replicas }, () => new Map<string, number>());
  const ownerOf = new Map<string, number>();
  const clients: Client[] = [];
  try {
    for (const [r, transport] of transports.entries()) {
      const connection = new Connection(transport) as ClientConnection;
      connection.onMessage((direction, message) => {
        if (direction !== 'in') return;
        const params = (
          message as {
            params?: { sessionId?: string; update?: { sessionUpdate?: string; content?: { text?: string } } };
          }
        ).params;
        if (params?.update?.sessionUpdate !== 'agent_message_chunk') return;
        const at = now();
        const sessionId = params.sessionId!;
        seen[r]!.set(sessionId, (seen[r]!.get(sessionId) ?? 0) + 1);
        const sent = Number(params.update.content?.text?.slice(2));
        if (!measuring || !Number.isFinite(sent)) return;
        const own = ownerOf.get(sessionId) === r;
        if (sent > promptsInAt) (own ? local : remote).push(at - sent);
        else (own ? localDuringPrompts : remoteDuringPrompts).push(at - sent);
      });
      const client = new Client(connection, { info: { name: `bench-client-${r}`, version: '0' } });
      await client.initialize();
      clients.push(client);
    }
    const ids: string[] = [];
    for (let s = 0; s < sessions; s++) {
      const owner = s % replicas;
      const id = await clients[owner]!.newSession('/bench');
      ownerOf.set(id, owner);
      ids.push(id);
    }
    // Every client follows every session.
    for (const [r, client] of clients.entries()) {
      for (const id of ids) if (ownerOf.get(id) !== r) await client.resume(id, { cwd: '/bench' });
    }
    const everyoneHas = async (perSession: number) => {
      const deadline = Date.now() + 120_000;
      while (seen.some((m) => ids.some((id) => (m.get(id) ?? 0) < perSession)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // One prompt per session at its owner, spread evenly over `spreadMs` (as users' prompts arrive,
    // not all at one instant); each reply streams its chunks from then on.
    const turn = (chunks: number, spreadMs: number) =>
      Promise.all(
        ids.map(async (id, s) => {
          await new Promise((resolve) => setTimeout(resolve, (spreadMs * s) / ids.length));
          await clients[ownerOf.get(id)!]!.prompt(id, [
            { type: 'text', text: `stream ${chunks} every ${Math.round(1000 / rate)} after 0` },
          ]);
        }),
      );
    // Warm-up, not measured: one turn of two chunks per session, delivered everywhere.
    await turn(2, 1000 / rate);
    await everyoneHas(2);
    const chunks = Math.max(1, Math.floor((durationMs * rate) / 1000));
    const replicaBefore = transports.map((t) =>
      t.child.pid === undefined ? undefined : processCpuMs(t.child.pid),
    );
    const serverBefore = serverCpuMs(options.postmasterPid);
    const driverBefore = ownCpuMs();
    const started = performance.now();
    measuring = true;
    await turn(chunks, promptsOverMs);
    promptsInAt = now();
    await everyoneHas(2 + chunks);
    measuring = false;
    const wallMs = performance.now() - started;
    const replicaCpuMs = transports.map((t, r) => {
      const after = t.child.pid === undefined ? undefined : processCpuMs(t.child.pid);
      const before = replicaBefore[r];
      return after === undefined || before === undefined ? undefined : after - before;
    });
    const serverAfter = serverCpuMs(options.postmasterPid);
    return {
      chunks: sessions * chunks,
      promptsOverMs,
      remote: latencies(remote),
      local: latencies(local),
      remoteDuringPrompts: latencies(remoteDuringPrompts),
      localDuringPrompts: latencies(localDuringPrompts),
      wallMs,
      replicaCpuMs,
      driverCpuMs: ownCpuMs() - driverBefore,
      serverCpuMs:
        serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
      load: load(),
    };
  } finally {
    for (const client of clients) client.close();
    await Promise.all(transports.map((t) => t.shutdown({ graceMs: 2000 })));
  }
}

export function printAgentFanout(
  result: AgentFanoutResult,
  replicas: number,
  sessions: number,
  rate: number,
): void {
  console.log(
    `\nCross-replica fan-out at the agent level: ${replicas} agent processes (ownership, fenced appends), ${sessions} sessions each owned by one, a client connection per replica following every session; one prompt per session at its owner (spread over ${fixed(result.promptsOverMs / 1000, 1)} s), whose reply streams ${rate} chunks/s (${result.chunks} chunks, each delivered to all ${replicas} clients)`,
  );
  const row = (what: string, remote: Latencies, local: Latencies) => {
    console.log(`  ${what}:`);
    console.log(
      `    client of another replica (NOTIFY + read + send): p50 ${fixed(remote.p50)} ms  p99 ${fixed(remote.p99)} ms  (${remote.count} deliveries)`,
    );
    console.log(
      `    client of the owner (baseline):                   p50 ${fixed(local.p50)} ms  p99 ${fixed(local.p99)} ms  (${local.count} deliveries)`,
    );
    console.log(
      `    ratio other/owner: p50 ${fixed(remote.p50 / local.p50)}×  p99 ${fixed(remote.p99 / local.p99)}×   target: other-replica p99 < 20 ms → ${remote.p99 < 20 ? 'met' : 'NOT met'}`,
    );
  };
  row('chunks sent once every prompt was in (sessions streaming)', result.remote, result.local);
  row(
    `chunks sent while the prompts arrived (${fixed(sessions / (result.promptsOverMs / 1000), 0)} prompts/s)`,
    result.remoteDuringPrompts,
    result.localDuringPrompts,
  );
  console.log(
    `  wall ${fixed(result.wallMs / 1000)} s  CPU: replicas ${result.replicaCpuMs.map((ms) => cpuSpent(0, ms)).join(' + ')}  clients (this process) ${cpuSpent(0, result.driverCpuMs)}  PostgreSQL server ${cpuSpent(0, result.serverCpuMs)}  load ${result.load}`,
  );
}
