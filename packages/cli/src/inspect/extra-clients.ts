import type { AgentRuns, RunOptions } from './agent-runs.js';
import { type AgentRun, startRun } from './agent-target.js';
import type { EventLog } from './event-log.js';

/**
 * The most extra clients (`POST /api/connect`) connected at once: each panel on the page is one
 * open connection to the remote agent, and no more are held than the page shows. Well below the
 * reference agent's 16 connections per address.
 */
export const MAX_EXTRA_CLIENTS = 4;

/** One extra client's connection to a remote agent. */
export interface ExtraClient {
  live: boolean;
  /** The run of the main connection it was opened during. */
  run: number;
  agent: AgentRun;
  /** Why it ended, once it did. */
  reason: string;
}

/** What opening a connection came to: its number, or the status and reason of a refusal. */
export type ConnectOutcome = { conn: number } | { status: number; reason: string };

/**
 * The extra clients' connections to a remote agent, by connection number (2 and up), relayed into
 * the event log under their number. An ended connection is not held.
 */
export class ExtraClients {
  readonly #extras = new Map<number, ExtraClient>();
  readonly #runs: AgentRuns;
  readonly #options: RunOptions;
  readonly #events: EventLog;
  readonly #started: number;
  #nextConn = 2;

  constructor(runs: AgentRuns, options: RunOptions, events: EventLog, started: number) {
    this.#runs = runs;
    this.#options = options;
    this.#events = events;
    this.#started = started;
  }

  /** How many are connected. */
  get size(): number {
    return this.#extras.size;
  }

  /** Connection `conn` while it is live. */
  live(conn: number): ExtraClient | undefined {
    const extra = this.#extras.get(conn);
    return extra?.live ? extra : undefined;
  }

  /**
   * Opens one more connection to the agent. Refused (the remote agent's own limits, a wrong token,
   * nothing listening): 502 and why; 503 when the inspector began stopping meanwhile.
   */
  async connect(): Promise<ConnectOutcome> {
    const events = this.#events;
    const started = this.#started;
    const conn = this.#nextConn++;
    const run = this.#runs.runNumber;
    const extra: ExtraClient = { live: true, run, agent: undefined as unknown as AgentRun, reason: '' };
    this.#extras.set(conn, extra);
    extra.agent = await startRun(this.#options.target, this.#options.cliEntry, {
      onFrame: (text) => events.push({ type: 'frame', run, conn, t: Date.now() - started, text }),
      onStderr: () => {},
      onEnd: (end) => {
        extra.live = false;
        extra.reason = end.reason;
        // An ended connection is not held: it no longer counts against the cap.
        this.#extras.delete(conn);
        events.push({ type: 'ended', run, conn, ...end });
      },
    });
    if (this.#runs.closing) {
      await extra.agent.stop();
      return { status: 503, reason: 'the inspector is stopping' };
    }
    if (!extra.live) return { status: 502, reason: extra.reason };
    events.push({ type: 'started', run, conn, description: extra.agent.description });
    return { conn };
  }

  /** Stops every connection still held. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#extras.values()].map((extra) => extra.agent?.stop()));
  }
}
