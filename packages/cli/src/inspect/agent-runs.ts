import { type AgentRun, type AgentTarget, startRun } from './agent-target.js';
import type { EventLog } from './event-log.js';

/** What the inspector's runs start, and the working directory the page is told about. */
export interface RunOptions {
  target: AgentTarget;
  /** The CLI's entry script, to run `acp-kit bridge` for a v1 agent. */
  cliEntry: string;
  /** The page's default working directory for new sessions (default: this process's). */
  cwd?: string;
}

/**
 * The inspector's main connection: the agent run the page talks to, relayed into the event log
 * (frames and stderr, its start and end), and its restarts. Restarts run one at a time, each
 * stopping the run before it, so the inspector never holds more than the one agent it shows.
 */
export class AgentRuns {
  readonly #options: RunOptions;
  readonly #events: EventLog;
  readonly #started: number;
  #runNumber = 0;
  #current: AgentRun | undefined;
  #live = false;
  #closing = false;
  /** Every run not yet stopped: normally one; the one being replaced too during a restart. */
  readonly #runs = new Set<AgentRun>();
  /** The restart in progress (restarts run one at a time), and one queued behind it that later requests join. */
  #restarting: Promise<void> = Promise.resolve();
  #queuedRestart: Promise<void> | undefined;

  /** `started` is the log's clock: frames are stamped in ms since it. */
  constructor(options: RunOptions, events: EventLog, started: number) {
    this.#options = options;
    this.#events = events;
    this.#started = started;
  }

  /** The number of the latest run (1 for the first). */
  get runNumber(): number {
    return this.#runNumber;
  }

  /** The run the page talks to, when the latest one is live; else undefined. */
  get liveRun(): AgentRun | undefined {
    return this.#live ? this.#current : undefined;
  }

  /** Whether the inspector is stopping: nothing new starts. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Starts the next run (nothing once closing) and logs its frames, stderr, start and end. */
  async begin(): Promise<void> {
    if (this.#closing) return;
    const run = ++this.#runNumber;
    const events = this.#events;
    const started = this.#started;
    this.#live = true;
    this.#current = await startRun(this.#options.target, this.#options.cliEntry, {
      onFrame: (text) => events.push({ type: 'frame', run, t: Date.now() - started, text }),
      onStderr: (text) => events.push({ type: 'stderr', run, text }),
      onEnd: (end) => {
        if (run === this.#runNumber) this.#live = false;
        events.push({ type: 'ended', run, ...end });
      },
    });
    this.#runs.add(this.#current);
    events.push({
      type: 'started',
      run,
      description: this.#current.description,
      target: this.#options.target.kind,
      cwd: this.#options.cwd ?? process.cwd(),
    });
  }

  async #stopRun(run: AgentRun | undefined): Promise<void> {
    if (run === undefined) return;
    await run.stop();
    this.#runs.delete(run);
  }

  /**
   * Stops the agent and starts a fresh one. Requests that come while one restart waits behind
   * another join the waiting one.
   */
  restart(): Promise<void> {
    if (this.#queuedRestart !== undefined) return this.#queuedRestart;
    const next = this.#restarting.then(async () => {
      this.#queuedRestart = undefined;
      const previous = this.#current;
      this.#current = undefined;
      this.#live = false;
      await this.#stopRun(previous);
      await this.begin();
    });
    this.#queuedRestart = next;
    this.#restarting = next.catch(() => {});
    return next;
  }

  /** Marks the inspector as stopping: no run starts after this. */
  beginClosing(): void {
    this.#closing = true;
  }

  /** Resolves once the restart under way (if any) finished; it starts nothing once closing. */
  settled(): Promise<void> {
    return this.#restarting;
  }

  /** Stops every run not yet stopped. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#runs].map((run) => this.#stopRun(run)));
  }
}
