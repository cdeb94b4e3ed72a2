/**
 * What an agent process allocates per streamed chunk, asked for over its IPC channel (the capacity
 * benchmark's `CAPACITY_ALLOCATIONS=1`). The parent sends `'allocations-start'`: the agent starts
 * V8's sampling heap profiler on itself (`node:inspector`), counting objects the garbage collector
 * has already taken too, so the figure is what was allocated, not what survived. On
 * `'allocations-stop'` it stops, sums the profile (each sample stands for its share of the bytes
 * allocated, as V8 scales it) and answers with the bytes, the chunks its paced turns sent in
 * between, the bytes by where the allocating code lives and the functions that allocated most.
 *
 * Allocation does not depend on how busy the machine is, unlike CPU per chunk: the same code
 * allocates the same per chunk in a quiet run and in a loaded one, so a change to the hot path
 * shows in it when CPU figures are lost in the machine's noise. The sampler costs CPU itself: the
 * cell it runs in has its CPU figures inflated. Both halves live here so the shapes cannot drift.
 */
import type { ChildProcess } from 'node:child_process';
import { Session } from 'node:inspector/promises';

/** Bytes between two samples, on average: about 100 000 samples in a 20 s window at 1 000 sessions. */
const SAMPLING_INTERVAL = 16 * 1024;

/** One function's allocations. */
export interface AllocatingFunction {
  name: string;
  /** Its file (the part after `dist/`, `bench/` or `node_modules/`) and line, or `node:…`. */
  where: string;
  bytes: number;
}

/** What the agent allocated between start and stop. */
export interface AllocationReport {
  type: 'allocations';
  bytes: number;
  /** Chunks its paced turns sent between start and stop (every session, once each). */
  chunks: number;
  /** Bytes by where the allocating code lives (see {@link areaOf}). */
  areas: Record<string, number>;
  top: AllocatingFunction[];
}

/** A sampling profile's node, as `HeapProfiler.stopSampling` returns it. */
interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Where code lives: the SDK under test, the official SDK, the benchmark itself, Node, V8 or others. */
export function areaOf(url: string): string {
  if (url === '') return 'V8 (builtins, JSON, no script)';
  if (url.startsWith('node:')) return 'Node';
  if (url.includes('/@agentclientprotocol/')) return 'official SDK';
  if (url.includes('/packages/sdk/dist/') || url.includes('/packages/sdk/src/')) return 'acp-kit SDK';
  if (url.includes('/packages/schema/')) return 'acp-kit schema';
  if (url.includes('/bench/')) return 'the benchmark';
  return 'other dependencies';
}

const shortWhere = (url: string, line: number): string =>
  `${url.replace(/^.*\/(dist|bench|node_modules)\//, '$1/').replace(/^file:\/\//, '')}:${line + 1}`;

/** Sums a sampling profile: the total, by area and by function (largest first, `top` of them). */
export function summarizeProfile(
  head: ProfileNode,
  top: number,
): Pick<AllocationReport, 'bytes' | 'areas' | 'top'> {
  let bytes = 0;
  const areas: Record<string, number> = {};
  const functions = new Map<string, AllocatingFunction>();
  const stack = [head];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    stack.push(...node.children);
    if (node.selfSize === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    bytes += node.selfSize;
    const area = areaOf(url);
    areas[area] = (areas[area] ?? 0) + node.selfSize;
    const key = `${functionName}\0${url}\0${lineNumber}`;
    const entry = functions.get(key);
    if (entry) entry.bytes += node.selfSize;
    else
      functions.set(key, {
        name: functionName || '(anonymous)',
        where: url === '' ? '(native)' : shortWhere(url, lineNumber),
        bytes: node.selfSize,
      });
  }
  return { bytes, areas, top: [...functions.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top) };
}

/** In an agent process: answers `'allocations-start'` and `'allocations-stop'` on its IPC channel. */
export function answerAllocationRequests(chunksSent: () => number): void {
  if (!process.send) return;
  let session: Session | undefined;
  let chunksAtStart = 0;
  process.on('message', (message) => {
    if (message === 'allocations-start') {
      void (async () => {
        session = new Session();
        session.connect();
        await session.post('HeapProfiler.enable');
        // Both flags (not in Node 20's typings) keep samples of objects collected since: allocation, not survival.
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: SAMPLING_INTERVAL,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        } as { samplingInterval: number });
        chunksAtStart = chunksSent();
        process.send?.({ type: 'allocations-started' });
      })();
    } else if (message === 'allocations-stop' && session !== undefined) {
      const current = session;
      session = undefined;
      void (async () => {
        const chunks = chunksSent() - chunksAtStart;
        const { profile } = await current.post('HeapProfiler.stopSampling');
        current.disconnect();
        const report: AllocationReport = {
          type: 'allocations',
          chunks,
          ...summarizeProfile(profile.head as ProfileNode, 12),
        };
        process.send?.(report);
      })();
    }
  });
}

/** In the benchmark: sends `ask` to the agent process and resolves with its answer of type `type`. */
function askAgent<T>(child: ChildProcess, ask: string, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      if ((message as { type?: unknown } | null)?.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (): void => {
      child.off('message', onMessage);
      reject(new Error(`the agent process exited before answering ${ask}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(ask);
  });
}

/** Starts sampling the agent's allocations; resolves once it samples. */
export const startAllocations = (child: ChildProcess): Promise<void> =>
  askAgent(child, 'allocations-start', 'allocations-started').then(() => undefined);

/** Stops sampling and resolves with what the agent allocated since {@link startAllocations}. */
export const stopAllocations = (child: ChildProcess): Promise<AllocationReport> =>
  askAgent(child, 'allocations-stop', 'allocations');
