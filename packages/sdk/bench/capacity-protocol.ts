/**
 * The IPC messages between the capacity benchmark (bench/capacity-run.ts) and its load-generator
 * client processes (bench/capacity-client.ts), in both directions, so the shapes cannot drift.
 */
import type { HistogramCounts } from './latency-histogram.js';
import type { Endpoint } from './listening-agent.js';

/** Which agent serves a cell. */
export type Implementation = 'ours' | 'official';
/** How clients reach it: Streamable HTTP, WebSocket, or Streamable HTTP to `acp-kit serve` running the agent on stdio. */
export type CapacityProfile = 'http' | 'websocket' | 'serve';

/** Benchmark → client process. */
export type ToClient =
  | {
      type: 'open';
      implementation: Implementation;
      profile: CapacityProfile;
      endpoint: Endpoint;
      /** Sessions this process opens, and how many of them get a second client (the first ones). */
      sessions: number;
      seconds: number;
      /** All sessions over one connection (serve: one agent process per connection) instead of one each. */
      oneConnection: boolean;
      seed: number;
    }
  | { type: 'run' }
  | { type: 'mark' }
  | { type: 'drain' }
  | { type: 'close' };

/** What a client process counted since its previous mark. */
export interface Mark {
  type: 'mark';
  /** Chunks taken in (ours: applied to a ConversationStore; official: delivered to the update handler), every client. */
  delivered: number;
  /** Chunk latencies, the agent's stamp to the chunk being in. */
  latency: HistogramCounts;
  /** `session/prompt` → its answer. */
  receipts: HistogramCounts;
  /** This process's CPU time so far (ms). */
  cpuMs: number;
}

/** What a client process found once every turn it asked for had ended. */
export interface Drained {
  type: 'drained';
  /** Chunks the agent says it sent to this process's sessions (the count in each session's last chunk). */
  agentSent: number;
  /** Chunks that many deliveries should make: each session's count times its clients. */
  expected: number;
  /** Chunks taken in by every client of every session, the whole run. */
  delivered: number;
  /** Chunks that arrived out of the agent's order, twice, or after a gap. */
  irregular: number;
  /** Sessions whose prompts never got an answer. */
  withoutReceipt: number;
  /** Second clients that did not catch up with their session's first one before the drain's bound. */
  behind: number;
  /** Sessions whose driving failed (a connection error) or whose turn never ended, left out of the counts above. */
  lost: number;
  /** Up to three distinct reasons. */
  lostReasons: string[];
  sessions: number;
}

/** Client process → benchmark. */
export type FromClient = { type: 'opened' } | Mark | Drained | { type: 'failed'; message: string };
