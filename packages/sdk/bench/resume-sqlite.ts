/**
 * Resuming a session with 100 000 retained messages from SQLite into a client store. The agent (our
 * Agent on a SqliteHistoryStore in a temp file, populated once) and the client (our Client with a
 * fresh ConversationStore) share one process and talk over createInProcessPair, schema validation
 * on both ends. Timed from sending `session/resume` with `replayFrom: start` to its response (the
 * agent answers after the replay, so the store then holds every message).
 *
 * Memory: each run is a fresh child process started with --expose-gc. It opens the store, builds
 * agent and client, runs gc() twice and takes RSS as the baseline, then samples
 * process.memoryUsage().rss every 1000 applied updates and every 10 ms, keeping the maximum.
 * Reported: peak RSS (the whole process: Node, agent, SQLite cache, client store) and peak − baseline.
 * The process CPU time of the resume (all threads) is printed too: on a shared machine wall time
 * above it is time spent waiting for a CPU.
 * Half the messages are agent replies retained as streamed (3 blocks). Two agent settings are run:
 * the default replay (`as-retained`: such a reply is replayed as a reset plus one chunk per block,
 * 250k updates in all) and `replay: 'full'` (every message as one update, 100k updates).
 * Prints one line per figure; asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionNotification } from '@acp-kit/schema';
import { Agent, type AgentConnection } from '../src/agent/index.js';
import { Client, type ClientConnection, ConversationStore } from '../src/client/index.js';
import type { HistoryStore, NewRetainedMessage } from '../src/history/index.js';
import { Connection } from '../src/rpc/index.js';
import { createInProcessPair } from '../src/transports/index.js';

const MESSAGES = 100_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SESSION = 'sess_resume_bench';
const FILE = join(tmpdir(), `acp-kit-bench-resume-${MESSAGES}.sqlite`);

/** What this bench uses of @acp-kit/history-sqlite's SqliteHistoryStore. */
interface SqliteStore extends HistoryStore {
  appendMessages(sessionId: string, messages: Iterable<NewRetainedMessage>): Promise<number>;
}

/**
 * @acp-kit/history-sqlite depends on this package, so it cannot be a dependency here (a workspace
 * cycle); it is loaded at run time from its build instead, which keeps typecheck independent of it.
 */
async function openSqlite(path: string): Promise<SqliteStore> {
  const specifier = '@acp-kit/history-sqlite';
  let module: { SqliteHistoryStore: { open(path: string): SqliteStore } };
  try {
    module = (await import(specifier)) as typeof module;
  } catch (error) {
    throw new Error(
      `cannot load ${specifier}: build it first (npx turbo run build --filter=@acp-kit/history-sqlite)`,
      { cause: error },
    );
  }
  return module.SqliteHistoryStore.open(path);
}

/** Alternating user prompts (retained whole) and agent replies (retained as streamed, 3 blocks). */
function* history(): Generator<NewRetainedMessage> {
  for (let i = 0; i < MESSAGES; i += 1) {
    const turn = Math.floor(i / 2);
    if (i % 2 === 0) {
      yield {
        kind: 'user_message',
        messageId: `msg_user_${turn}`,
        content: [{ type: 'text', text: `Please look at issue #${turn} and fix the failing test.` }],
        via: 'full',
      };
    } else {
      yield {
        kind: 'agent_message',
        messageId: `msg_agent_${turn}`,
        content: [
          { type: 'text', text: `I read the test for issue #${turn}. ` },
          { type: 'text', text: 'The assertion compared the wrong field; ' },
          { type: 'text', text: 'it is fixed and the suite passes.' },
        ],
        via: 'chunks',
      };
    }
  }
}

async function populate(): Promise<void> {
  rmSync(FILE, { force: true });
  const store = await openSqlite(FILE);
  await store.createSession({ sessionId: SESSION, cwd: '/repo' });
  await store.appendMessages(SESSION, history());
  await store.close();
}

interface RunResult {
  ms: number;
  cpuMs: number;
  updates: number;
  messages: number;
  baselineMb: number;
  peakMb: number;
  peakHeapMb: number;
}

async function run(replay: 'as-retained' | 'full'): Promise<RunResult> {
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

  const history = await openSqlite(FILE);
  const agent = new Agent({
    info: { name: 'bench-agent', version: '0.0.0' },
    history,
    replay,
    onPrompt: (prompt) => void prompt.insert(),
  });
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide) as AgentConnection);
  const client = new Client(new Connection(clientSide) as ClientConnection, {
    info: { name: 'bench-client', version: '0.0.0' },
    store: new SamplingStore(),
  });
  await client.initialize();

  gc();
  gc();
  const baseline = process.memoryUsage().rss;
  peak = baseline;
  const timer = setInterval(sample, 10);
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await client.resume(SESSION, { cwd: '/repo', replay: true });
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  sample();
  clearInterval(timer);
  const messages = client.store.snapshot(SESSION).messages.length;
  client.close();
  await history.close();
  const mb = (bytes: number): number => bytes / 2 ** 20;
  return {
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    updates,
    messages,
    baselineMb: mb(baseline),
    peakMb: mb(peak),
    peakHeapMb: mb(peakHeap),
  };
}

if (process.argv.includes('--populate')) {
  await populate();
} else if (process.argv.includes('--run')) {
  const replay = process.argv.includes('full') ? 'full' : 'as-retained';
  process.stdout.write(`${JSON.stringify(await run(replay))}\n`);
} else {
  const self = fileURLToPath(import.meta.url);
  const child = (...flags: string[]): string => {
    const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, ...flags], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (result.status !== 0) throw new Error(`${flags.join(' ')} failed with status ${result.status}`);
    return result.stdout;
  };
  if (!existsSync(FILE)) {
    const start = performance.now();
    child('--populate');
    console.log(
      `populated ${FILE} with ${MESSAGES} messages in ${((performance.now() - start) / 1000).toFixed(1)} s`,
    );
  }
  console.log(
    `resume with replay of ${MESSAGES.toLocaleString('en-US')} retained messages from SQLite, in process, ${RUNS} runs`,
  );
  for (let i = 0; i < RUNS * 2; i += 1) {
    const replay = i % 2 === 0 ? 'as-retained' : 'full';
    const r = JSON.parse(child('--run', replay)) as RunResult;
    console.log(
      `  run ${Math.floor(i / 2) + 1}, replay ${replay.padEnd(11)}: resume → response ${(r.ms / 1000).toFixed(2)} s (target < 2 s; process CPU ${(r.cpuMs / 1000).toFixed(2)} s)   ` +
        `peak RSS ${r.peakMb.toFixed(0)} MB (target < 300 MB; baseline ${r.baselineMb.toFixed(0)} MB, +${(r.peakMb - r.baselineMb).toFixed(0)} MB)   ` +
        `peak heap ${r.peakHeapMb.toFixed(0)} MB   [${r.updates} updates, ${r.messages} messages in the store]`,
    );
  }
}
