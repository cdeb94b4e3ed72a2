/**
 * What idle Streamable HTTP connections cost an agent process. One fresh listening agent (ours or
 * the official one); a few connections opened first (so lazily compiled code and first-use tables
 * are in the baseline) and its memory read after a full GC. Then connections are added in steps
 * (for example up to 100, then up to 1 000, then up to 2 000), the agent's memory read after each:
 * every client `initialize`s and opens a session, and a step ends when the server has answered
 * every session's SSE stream (each connection then holds its connection-scoped and its
 * session-scoped stream open, idle).
 *
 * Each step gives two figures:
 * - the growth since the baseline divided by the connections added since then (the average);
 * - the growth over the step divided by the connections it added (the marginal cost of one more
 *   connection).
 * They differ because V8 grows its young generation (up to tens of MB, once) under the allocation
 * burst of opening many connections and keeps it after a GC: a fixed cost that the average spreads
 * over however many connections were opened, and that the marginal cost of later steps no longer
 * holds. The marginal cost at a large step is what each idle connection costs.
 */
import type { BenchClient } from './bench-client.js';
import { type Endpoint, startListeningAgent } from './listening-agent.js';
import { watchedFetch } from './watched-fetch.js';

/** One step: bytes per idle connection, averaged since the baseline and marginal over the step. */
export interface IdleCost {
  /** Connections open at the end of the step (beyond the baseline ones). */
  connections: number;
  averageRss: number;
  marginalRss: number;
  marginalHeap: number;
  /** Memory outside the V8 heap (`external`, array buffers included: socket and stream buffers live there). */
  marginalExternal: number;
}

type Connect = (endpoint: Endpoint, fetchImpl: typeof fetch) => Promise<BenchClient>;

const BASELINE = 10;
/** Connections being opened at once (a client opening a thousand at a stroke is not the point). */
const CONCURRENCY = 32;

async function openUpTo(
  clients: BenchClient[],
  count: number,
  open: () => Promise<BenchClient>,
): Promise<void> {
  let next = clients.length;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      clients.push(await open());
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

async function closeAll(clients: BenchClient[]): Promise<void> {
  for (let at = 0; at < clients.length; at += CONCURRENCY) {
    await Promise.all(clients.slice(at, at + CONCURRENCY).map((client) => client.close()));
  }
}

/**
 * Measures idle connections on a fresh agent process started from `script`, opened up to each of
 * `steps` (ascending) in turn.
 */
export async function idleConnectionCosts(
  script: string,
  connect: Connect,
  steps: readonly number[],
): Promise<IdleCost[]> {
  const agent = await startListeningAgent(script);
  const watched = watchedFetch();
  const clients: BenchClient[] = [];
  try {
    const open = () => connect(agent.endpoint, watched.fetch);
    await openUpTo(clients, BASELINE, open);
    await watched.sessionStreams(BASELINE);
    const baseline = await agent.memory();
    let previous = { memory: baseline, connections: 0 };
    const costs: IdleCost[] = [];
    for (const step of steps) {
      await openUpTo(clients, BASELINE + step, open);
      await watched.sessionStreams(BASELINE + step);
      const memory = await agent.memory();
      const added = step - previous.connections;
      costs.push({
        connections: step,
        averageRss: (memory.rss - baseline.rss) / step,
        marginalRss: (memory.rss - previous.memory.rss) / added,
        marginalHeap: (memory.heapUsed - previous.memory.heapUsed) / added,
        marginalExternal: (memory.external - previous.memory.external) / added,
      });
      previous = { memory, connections: step };
    }
    return costs;
  } finally {
    await closeAll(clients);
    await agent.stop();
  }
}
