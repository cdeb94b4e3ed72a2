import {
  Connection,
  noValidation,
  type ProcessExit,
  recordTranscript,
  RpcError,
  spawnTransport,
  type ChildProcessTransport,
  type TranscriptRecorder,
} from '@acp-kit/sdk';
import { type Analysis, analyze } from '../analysis/model.js';
import { entriesFromLines, type TranscriptEntry } from '../transcript/parse.js';

/** How to launch the agent under test. */
export interface AgentLaunch {
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Longest wait for any one answer or condition. */
  timeoutMs: number;
  /** Longest wait for the answer to the first request, which includes the process starting up. */
  startupTimeoutMs: number;
}

/** The agent's answer to a request: its result or error, or why there was none. */
export type Reply =
  | { ok: true; result: unknown }
  | { ok: false; error: { code: number; message: string } }
  | { ok: false; error?: undefined; missing: string };

/** The agent went away or stopped answering in a way that ends the scenario. */
export class ScenarioAbort extends Error {
  constructor(
    message: string,
    /** Whether the agent is to blame (it exited, or did not answer a setup request). */
    readonly agentFault: boolean,
  ) {
    super(message);
    this.name = 'ScenarioAbort';
  }
}

const STDERR_TAIL = 4000;

/**
 * One fresh agent process, driven over stdio by a raw, non-validating connection so the kit sees
 * exactly what the agent sends. Every message is recorded.
 */
export class AgentProcess {
  readonly #transport: ChildProcessTransport;
  readonly #connection: Connection;
  readonly #recorder: TranscriptRecorder;
  readonly #timeoutMs: number;
  readonly #startupTimeoutMs: number;
  #stderr = '';
  #exit: ProcessExit | undefined;
  #closeReason: string | undefined;
  readonly #exitWaiters = new Set<() => void>();

  constructor(launch: AgentLaunch) {
    this.#timeoutMs = launch.timeoutMs;
    this.#startupTimeoutMs = launch.startupTimeoutMs;
    this.#transport = spawnTransport(launch.command, [...launch.args], {
      ...(launch.cwd ? { cwd: launch.cwd } : {}),
      ...(launch.env ? { env: launch.env } : {}),
      name: 'agent',
      onStderr: (text) => {
        this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
      },
    });
    this.#connection = new Connection(this.#transport, { validator: noValidation });
    this.#recorder = recordTranscript(this.#connection, { side: 'client' });
    // A client that cannot ask the user declines permission requests: the scenarios never need one.
    this.#connection.onUnhandledRequest((method) => {
      if (method === 'session/request_permission') return { outcome: { outcome: 'cancelled' } };
      throw new RpcError(-32601, `Method not found: ${method}`);
    });
    this.#connection.onUnhandledNotification(() => {});
    this.#connection.onDiagnostic(() => {});
    this.#connection.onClose((reason) => {
      this.#closeReason = reason.message;
    });
    this.#transport.exited.then((exit) => {
      this.#exit = exit;
      for (const wake of this.#exitWaiters) wake();
    });
    this.#connection.listen();
  }

  /** Everything recorded so far. */
  get entries(): TranscriptEntry[] {
    return entriesFromLines(this.#recorder.lines);
  }

  /** The recording as ndjson. */
  transcriptText(): string {
    return this.#recorder.text();
  }

  /** The recorded lines (for reports). */
  get lines(): TranscriptRecorder['lines'] {
    return this.#recorder.lines;
  }

  /** The end of the agent's stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /**
   * Sends a request and waits (up to the timeout; the startup timeout for the very first request)
   * for the answer. Never throws.
   */
  async request(method: string, params: unknown): Promise<Reply> {
    if (this.#connection.isClosed) return { ok: false, missing: this.#gone() };
    const limit = this.#recorder.lines.length === 0 ? this.#startupTimeoutMs : this.#timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<Reply>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, missing: `no answer to ${method} within ${limit} ms` }),
        limit,
      );
    });
    const answer = this.#connection.sendRequest(method as `_${string}`, params).then(
      (result): Reply => ({ ok: true, result }),
      (error: unknown): Reply => {
        if (error instanceof RpcError && !this.#connection.isClosed) {
          return { ok: false, error: { code: error.code, message: error.message } };
        }
        return { ok: false, missing: this.#gone() };
      },
    );
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a notification. */
  async notify(method: string, params: unknown): Promise<void> {
    await this.#connection.sendNotification(method as `_${string}`, params).catch(() => undefined);
  }

  /**
   * Waits until `condition` holds on the analysis of the transcript so far. Resolves false on
   * timeout; throws {@link ScenarioAbort} if the agent exits first.
   */
  waitFor(condition: (analysis: Analysis) => boolean): Promise<boolean> {
    const test = (): boolean => condition(analyze(this.entries));
    if (test()) return Promise.resolve(true);
    return new Promise<boolean>((resolve, reject) => {
      const finish = (outcome: boolean | Error): void => {
        clearTimeout(timer);
        subscription.dispose();
        this.#exitWaiters.delete(onExit);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const timer = setTimeout(() => finish(false), this.#timeoutMs);
      const subscription = this.#recorder.onLine(() => {
        if (test()) finish(true);
      });
      const onExit = (): void => finish(test() ? true : new ScenarioAbort(this.#gone(), true));
      this.#exitWaiters.add(onExit);
      if (this.#exit) onExit();
    });
  }

  /** Closes stdin, then escalates to SIGTERM and SIGKILL; resolves with the exit. */
  async close(): Promise<ProcessExit> {
    this.#recorder.dispose();
    this.#connection.close();
    return this.#transport.shutdown({ graceMs: Math.min(2000, this.#timeoutMs) });
  }

  #gone(): string {
    // The transport's close reason names a spawn failure or the exit code ("agent exited with code 3").
    if (this.#closeReason) return this.#closeReason.replace(/^connection closed: /, '');
    const exit = this.#exit;
    if (!exit) return 'the agent closed the connection';
    return exit.signal ? `the agent was killed by ${exit.signal}` : `the agent exited with code ${exit.code}`;
  }
}
