/**
 * What idle Streamable HTTP connections cost an agent process: a fresh listening agent (ours or
 * the official one), a few connections opened and closed first (so lazily compiled code and
 * first-use tables are in the baseline), then the agent's memory after a full GC; then `n` clients
 * each `initialize` and open a session, and the run waits until the server has answered every
 * session's SSE stream (each connection then holds its connection-scoped and its session-scoped
 * stream open, idle); the agent's memory again. The growth divided by `n` is the cost of one idle
 * connection.
 */
import type { BenchClient } from './bench-client.js';
import { type Endpoint, startListeningAgent } from './listening-agent.js';
import { watchedFetch } from './watched-fetch.js';

/** One measurement: bytes per idle connection. */
export interface IdleCost {
  connections: number;
  rssPerConnection: number;
  heapPerConnection: number;
  /** Memory outside the V8 heap (`external`, array buffers included: socket and stream buffers live there). */
  externalPerConnection: number;
}

type Connect = (endpoint: Endpoint, fetchImpl: typeof fetch) => Promise<BenchClient>;

const WARM_UP = 10;
/** Connections being opened at once (a client opening a thousand at a stroke is not the point). */
const CONCURRENCY = 32;

async function openAll(count: number, open: () => Promise<BenchClient>): Promise<BenchClient[]> {
  const clients: BenchClient[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      clients.push(await open());
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  return clients;
}

async function closeAll(clients: BenchClient[]): Promise<void> {
  for (let at = 0; at < clients.length; at += CONCURRENCY) {
    await Promise.all(clients.slice(at, at + CONCURRENCY).map((client) => client.close()));
  }
}

/** Measures `n` idle connections on a fresh agent process started from `script`. */
export async function idleConnectionCost(script: string, connect: Connect, n: number): Promise<IdleCost> {
  const agent = await startListeningAgent(script);
  const watched = watchedFetch();
  try {
    const open = () => connect(agent.endpoint, watched.fetch);
    const warm = await openAll(WARM_UP, open);
    await watched.sessionStreams(WARM_UP);
    await closeAll(warm);
    const before = await agent.memory();
    const clients = await openAll(n, open);
    await watched.sessionStreams(WARM_UP + n);
    const after = await agent.memory();
    await closeAll(clients);
    return {
      connections: n,
      rssPerConnection: (after.rss - before.rss) / n,
      heapPerConnection: (after.heapUsed - before.heapUsed) / n,
      externalPerConnection: (after.external - before.external) / n,
    };
  } finally {
    await agent.stop();
  }
}
