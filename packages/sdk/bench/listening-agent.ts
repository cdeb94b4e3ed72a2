/**
 * Starts a listening agent process of the remote-transports benchmark (bench/remote-agent.ts or
 * bench/official-remote-agent.ts in `listen` mode) with `--expose-gc` and an IPC channel, and
 * reads the endpoint it prints (BENCH_AGENT_FLAGS adds Node flags, e.g. `--cpu-prof`). Stopping it disconnects the channel (the agent exits on that) and
 * kills it if it has not exited a few seconds later, so no agent outlives the benchmark.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type AgentMemory, askMemory } from './agent-memory.js';
import { type AllocationReport, startAllocations, stopAllocations } from './allocation-sampling.js';

/** Where a listening agent serves, and its token (ours only). */
export interface Endpoint {
  url: string;
  webSocketUrl: string;
  token?: string;
  /** The agent process serving it. */
  pid: number;
}

/** A running listening agent. */
export interface ListeningAgent {
  readonly endpoint: Endpoint;
  readonly pid: number;
  /** Its memory after a full GC. */
  memory(): Promise<AgentMemory>;
  /** Starts sampling its allocations (bench/allocation-sampling.ts); not behind serve. */
  startAllocations?(): Promise<void>;
  /** Stops sampling and says what it allocated since the start. */
  stopAllocations?(): Promise<AllocationReport>;
  stop(): Promise<void>;
}

const CWD = fileURLToPath(new URL('..', import.meta.url));
/** Extra Node flags for the listening agents (for example `--cpu-prof`), space-separated. */
const AGENT_FLAGS = (process.env.BENCH_AGENT_FLAGS ?? '').split(' ').filter(Boolean);

/**
 * Spawns `script listen` and resolves once it printed its endpoint; `flags` are further Node
 * flags for this one agent (the capacity benchmark's `--cpu-prof`).
 */
export async function startListeningAgent(
  script: string,
  flags: readonly string[] = [],
): Promise<ListeningAgent> {
  const child = spawn(
    process.execPath,
    [...AGENT_FLAGS, ...flags, '--expose-gc', '--import', 'tsx', script, 'listen'],
    {
      cwd: CWD,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = await new Promise<Endpoint>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end === -1) return;
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      resolve({ ...(JSON.parse(text.slice(0, end)) as Omit<Endpoint, 'pid'>), pid: child.pid! });
    };
    const onExit = (code: number | null): void =>
      reject(new Error(`${script} exited with ${code} before printing its endpoint`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
  child.stdout!.resume();
  return {
    endpoint,
    pid: child.pid!,
    memory: () => askMemory(child),
    startAllocations: () => startAllocations(child),
    stopAllocations: () => stopAllocations(child),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
