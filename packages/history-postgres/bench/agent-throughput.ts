/**
 * Retained updates per second at the agent level, the shape users run: an agent process
 * (stream-agent.ts, set up as `acp-kit agent --history …` is) serving a client over stdio, once on
 * SQLite and once on PostgreSQL (leases, fenced appends), driven from this process with the same
 * prompts. Each turn retains the user message and an agent message streamed as `chunks` chunks
 * (its first chunk opens it), each awaited by the agent before the next, as an agent streams a
 * reply. `sessions` sessions run their turns at once, each waiting for its turn to end (`idle`)
 * before prompting again. Run at several shapes: short and long replies, one session and many.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ClientConnection, Connection, spawnTransport } from '@acp-kit/sdk';
import { cpuSpent, fixed, load, ownCpuMs, processCpuMs, serverCpuMs } from './stats.js';

/** One measured shape: sessions at once, turns per session, chunks per reply. */
export interface AgentShape {
  readonly sessions: number;
  readonly turns: number;
  readonly chunks: number;
}

export interface AgentThroughputRow {
  readonly sessions: number;
  readonly chunks: number;
  readonly backend: 'sqlite' | 'postgres';
  readonly perSecond: number;
  readonly wallMs: number;
  readonly agentCpuMs: number | undefined;
  readonly clientCpuMs: number;
  readonly serverCpuMs: number | undefined;
  readonly load: string;
}

async function run(
  backend: 'sqlite' | 'postgres',
  args: readonly string[],
  { sessions, turns, chunks }: AgentShape,
  postmasterPid: number | undefined,
): Promise<AgentThroughputRow> {
  const script = fileURLToPath(new URL('./stream-agent.ts', import.meta.url));
  // BENCH_PROFILE=<dir>: write a CPU profile of each agent process there.
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const transport = spawnTransport(
    process.execPath,
    [...profile, '--import', 'tsx', script, backend, ...args],
    {
      onStderr: (text) => process.stderr.write(text),
    },
  );
  const connection = new Connection(transport) as ClientConnection;
  const waiting = new Map<string, () => void>();
  connection.onMessage((direction, message) => {
    const params = (message as { params?: { sessionId?: string; update?: { state?: string } } }).params;
    if (direction === 'in' && params?.update?.state === 'idle' && params.sessionId !== undefined) {
      waiting.get(params.sessionId)?.();
    }
  });
  const client = new Client(connection, { info: { name: 'bench-client', version: '0' } });
  try {
    await client.initialize();
    const ids: string[] = [];
    for (let s = 0; s < sessions; s++) ids.push(await client.newSession('/bench'));
    const turn = async (sessionId: string, t: number) => {
      const ended = new Promise<void>((resolve) => waiting.set(sessionId, resolve));
      await client.prompt(sessionId, [{ type: 'text', text: `prompt ${t} chunks ${chunks}` }]);
      await ended;
    };
    // Warm-up: one turn per session (JIT, statement caches, pooled connections).
    await Promise.all(ids.map((id) => turn(id, -1)));
    const pid = transport.child.pid;
    const agentBefore = pid === undefined ? undefined : processCpuMs(pid);
    const serverBefore = serverCpuMs(postmasterPid);
    const clientBefore = ownCpuMs();
    const started = performance.now();
    await Promise.all(
      ids.map(async (id) => {
        for (let t = 0; t < turns; t++) await turn(id, t);
      }),
    );
    const wallMs = performance.now() - started;
    const agentAfter = pid === undefined ? undefined : processCpuMs(pid);
    const serverAfter = serverCpuMs(postmasterPid);
    return {
      sessions,
      chunks,
      backend,
      // Retained per turn: the user message and the reply's chunks.
      perSecond: (sessions * turns * (1 + chunks)) / (wallMs / 1000),
      wallMs,
      agentCpuMs:
        agentBefore === undefined || agentAfter === undefined ? undefined : agentAfter - agentBefore,
      clientCpuMs: ownCpuMs() - clientBefore,
      serverCpuMs:
        serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
      load: load(),
    };
  } finally {
    client.close();
    await transport.shutdown();
  }
}

export async function agentThroughput(
  url: string,
  postmasterPid: number | undefined,
  shapes: readonly AgentShape[],
): Promise<AgentThroughputRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-agent-'));
  const rows: AgentThroughputRow[] = [];
  try {
    for (const [i, shape] of shapes.entries()) {
      rows.push(await run('sqlite', [join(dir, `history-${i}.sqlite`)], shape, undefined));
      const schema = `bench_agent_${Date.now().toString(36)}_${i}`;
      rows.push(await run('postgres', [url, schema], shape, postmasterPid));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function printAgentThroughput(rows: readonly AgentThroughputRow[]): void {
  console.log(
    '\nRetained updates per second at the agent level (an agent process over stdio, set up as `acp-kit agent --history`; turn = user message + an agent message streamed as N chunks, each awaited by the agent; PostgreSQL with leases and fenced appends, chunks written behind as the log suggests):',
  );
  for (let i = 0; i + 1 < rows.length; i += 2) {
    const sqlite = rows[i]!;
    const postgres = rows[i + 1]!;
    const ratio = postgres.perSecond / sqlite.perSecond;
    console.log(
      `  ${String(sqlite.sessions).padStart(3)} session(s) at once, ${String(sqlite.chunks).padStart(3)} chunks per reply: SQLite ${fixed(sqlite.perSecond, 0)}/s  PostgreSQL ${fixed(postgres.perSecond, 0)}/s  ratio PG/SQLite ${fixed(ratio)}×  (target ≥ 0.5×: ${ratio >= 0.5 ? 'met' : 'NOT met'})`,
    );
    for (const row of [sqlite, postgres]) {
      console.log(
        `      ${row.backend.padEnd(8)} wall ${fixed(row.wallMs / 1000)} s  CPU: agent ${cpuSpent(0, row.agentCpuMs)}  client ${cpuSpent(0, row.clientCpuMs)}  PostgreSQL server ${cpuSpent(0, row.serverCpuMs)}  load ${row.load}`,
      );
    }
  }
}
