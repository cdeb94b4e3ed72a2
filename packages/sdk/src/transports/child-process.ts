import { type ChildProcess, spawn } from 'node:child_process';
import type { MessageReader, MessageReaderListener, Transport } from '../rpc/index.js';
import { StreamMessageReader, StreamMessageWriter } from './stream.js';

/** How a child process ended. */
export interface ProcessExit {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, or null. */
  signal: NodeJS.Signals | null;
}

/** Options for {@link spawnTransport}. */
export interface SpawnTransportOptions {
  /** Working directory of the child. */
  cwd?: string;
  /** Environment of the child (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** Receives the child's stderr as UTF-8 text; without it stderr is read and discarded so the child never blocks. */
  onStderr?: (text: string) => void;
  /** Longest accepted incoming line in bytes. Default 8 MiB. */
  maxMessageBytes?: number;
  /** How error messages name the process, e.g. "agent". Default: `process "<command>"`. */
  name?: string;
}

/** Options for {@link ChildProcessTransport.shutdown}. */
export interface ShutdownOptions {
  /** How long to wait after closing stdin before SIGTERM, and after SIGTERM before SIGKILL. Default 2000 ms. */
  graceMs?: number;
}

/** An ndjson transport over a spawned process's stdin/stdout, with its lifecycle. */
export interface ChildProcessTransport extends Transport {
  /** The spawned process. */
  readonly child: ChildProcess;
  /** Settles when the process has exited and its pipes are closed (also after a spawn failure). */
  readonly exited: Promise<ProcessExit>;
  /** Closes stdin, then sends SIGTERM after a grace period, then SIGKILL; resolves with the exit. */
  shutdown(options?: ShutdownOptions): Promise<ProcessExit>;
}

/** Describes an exit the way error messages should: "exited with code 3", "was killed by SIGTERM". */
export function describeExit(exit: ProcessExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/**
 * Reads the child's stdout but reports the end of the stream only once the process has exited,
 * so the connection's close reason (and every pending request's rejection) names the exit code.
 */
class ChildStdoutReader implements MessageReader {
  readonly #inner: StreamMessageReader;
  readonly #ended: Promise<Error>;

  constructor(child: ChildProcess, ended: Promise<Error>, maxMessageBytes: number | undefined) {
    this.#ended = ended;
    this.#inner = new StreamMessageReader(child.stdout!, { maxMessageBytes });
  }

  listen(listener: MessageReaderListener): void {
    this.#inner.listen({
      onMessage: (text) => listener.onMessage(text),
      onFrameError: (error) => listener.onFrameError(error),
      onClose: () => {},
    });
    this.#ended.then((reason) => listener.onClose(reason));
  }

  dispose(): void {
    this.#inner.dispose();
  }

  pause(): void {
    this.#inner.pause();
  }

  resume(): void {
    this.#inner.resume();
  }
}

/**
 * Spawns `command` and speaks ndjson JSON-RPC over its stdin/stdout. When the process exits the
 * reader closes with an error such as "agent process exited with code 3", so a connection on top
 * rejects its pending requests with that message.
 */
export function spawnTransport(
  command: string,
  args: readonly string[] = [],
  options: SpawnTransportOptions = {},
): ChildProcessTransport {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const name = options.name ?? `process ${JSON.stringify(command)}`;

  let spawnError: Error | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', (error) => {
      spawnError = error;
      // A process that never started emits no 'close'.
      if (child.pid === undefined) resolve({ code: null, signal: null });
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const ended = exited.then(
    (exit) =>
      new Error(spawnError ? `${name} failed: ${spawnError.message}` : `${name} ${describeExit(exit)}`),
  );

  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => options.onStderr?.(text));

  const reader = new ChildStdoutReader(child, ended, options.maxMessageBytes);
  const writer = new StreamMessageWriter(child.stdin!);

  const shutdown = async ({ graceMs = 2000 }: ShutdownOptions = {}): Promise<ProcessExit> => {
    const finished = (): boolean =>
      child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
    const waitFor = (ms: number): Promise<boolean> =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        exited.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    if (!finished()) {
      child.stdin!.end();
      if (!(await waitFor(graceMs))) {
        child.kill('SIGTERM');
        if (!(await waitFor(graceMs))) child.kill('SIGKILL');
      }
    }
    return exited;
  };

  return { reader, writer, child, exited, shutdown };
}
