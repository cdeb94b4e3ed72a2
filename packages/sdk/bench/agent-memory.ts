/**
 * The memory of an agent process, asked for over its IPC channel (`child_process.fork`-style
 * `stdio: [..., 'ipc']`): the parent sends `'memory'`, the agent runs a full garbage collection
 * (it is started with `--expose-gc`) and answers with `process.memoryUsage()`, its resident
 * memory and V8's heap spaces as they were before that GC (and, for the capacity benchmark, the
 * chunks its paced turns sent). Both halves live
 * here so the message shapes cannot drift apart.
 */
import type { ChildProcess } from 'node:child_process';
import { getHeapSpaceStatistics } from 'node:v8';

/** What an agent process reports: bytes, as `process.memoryUsage()` gives them after a GC. */
export interface AgentMemory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Chunks the agent's paced turns sent in all (bench/paced-turn.ts), when it counts them. */
  chunksSent?: number;
  /**
   * Before that GC: the process's resident memory, and what of each space of V8's heap is
   * resident (`physical_space_size` of `v8.getHeapSpaceStatistics()`, by space name).
   */
  beforeGc?: { rss: number; spaces: Record<string, number> };
}

/** The resident bytes of each space of V8's heap, by name (`new_space`, `old_space`, …). */
function residentSpaces(): Record<string, number> {
  const spaces: Record<string, number> = {};
  for (const space of getHeapSpaceStatistics()) spaces[space.space_name] = space.physical_space_size;
  return spaces;
}

const ASK = 'memory';

/**
 * In an agent process: answers `'memory'` on the IPC channel, and exits when the parent
 * disconnects it (so an agent never outlives its benchmark).
 */
export function answerMemoryRequests(chunksSent?: () => number): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!process.send) return;
  process.on('message', (message) => {
    if (message !== ASK) return;
    const beforeGc = { rss: process.memoryUsage.rss(), spaces: residentSpaces() };
    if (gc) {
      gc();
      gc();
    }
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    const answer: AgentMemory = {
      rss,
      heapUsed,
      external,
      arrayBuffers,
      beforeGc,
      ...(chunksSent ? { chunksSent: chunksSent() } : {}),
    };
    process.send?.(answer);
  });
  process.on('disconnect', () => process.exit(0));
}

/** In the benchmark: asks an agent process started with an IPC channel for its memory. */
export function askMemory(child: ChildProcess): Promise<AgentMemory> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      // Answers of other requests on the channel carry a type (bench/allocation-sampling.ts).
      if (typeof message !== 'object' || message === null || 'type' in message) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as AgentMemory);
    };
    const onExit = (): void => {
      child.off('message', onMessage);
      reject(new Error('the agent process exited before reporting its memory'));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(ASK);
  });
}
