import { type ChildProcess, spawn } from 'node:child_process';
import { PROCESS_GROUPS, ProcessTree, trackTree, untrackTree } from './process-group.js';
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
  /**
   * How long to wait after closing stdin before SIGTERM, after SIGTERM before SIGKILL, and after
   * SIGKILL for the processes to be gone. Default 2000 ms.
   */
  graceMs?: number;
}

/** An ndjson transport over a spawned process's stdin/stdout, with its lifecycle. */
export interface ChildProcessTransport extends Transport {
  /** The spawned process (on POSIX the leader of its own process group). */
  readonly child: ChildProcess;
  /** Settles when the process has exited and its pipes are closed (also after a spawn failure). */
  readonly exited: Promise<ProcessExit>;
  /**
   * Ends the process and everything it started: closes stdin, waits up to `graceMs` for all of
   * it to exit, then sends SIGTERM to the process group, waits again, then SIGKILL to the group
   * and every descendant; resolves with the exit once nothing of it runs. Calling it again (or
   * concurrently) joins the same shutdown.
   */
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

/** Polling interval while waiting for a process group to be gone. */
const POLL_MS = 25;

/** The shutdown of every process {@link spawnTransport} started and did not see end yet. */
const unfinished = new Set<(options?: ShutdownOptions) => Promise<ProcessExit>>();

/**
 * Shuts down every process {@link spawnTransport} started in this process that is not known to
 * be gone — each as its {@link ChildProcessTransport.shutdown} does (stdin closed, then SIGTERM to
 * its group, then SIGKILL to its tree, `graceMs` apart), all at once — and resolves when they are
 * gone. For a command that stops on a signal without knowing every agent it started.
 */
export async function shutdownSpawned(options: ShutdownOptions = {}): Promise<void> {
  await Promise.all([...unfinished].map((shutdown) => shutdown(options)));
}

/**
 * Spawns `command` and speaks ndjson JSON-RPC over its stdin/stdout. When the process exits the
 * reader closes with an error such as "agent process exited with code 3", so a connection on top
 * rejects its pending requests with that message.
 *
 * On POSIX the process runs in a process group of its own, so that
 * {@link ChildProcessTransport.shutdown} reaches all of it: agents are often started through a
 * wrapper (`sh -c`, `npx`), and a child that ignores the end of its stdin and SIGTERM must not
 * outlive us. Until the group is seen gone it is also ended (SIGKILL to the tree) when this
 * process exits; when SIGINT, SIGTERM or SIGHUP would end this process (nothing else handles it),
 * just before it dies of it; and on a repeated termination signal (see
 * {@link onTerminationSignal}). Only a SIGKILL of this process itself bypasses all that: the
 * process then sees the end of its stdin, nothing more.
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
    detached: PROCESS_GROUPS,
  });
  const name = options.name ?? `process ${JSON.stringify(command)}`;
  const pid = child.pid;
  const tree = PROCESS_GROUPS && pid !== undefined ? new ProcessTree(pid) : undefined;
  if (tree) trackTree(tree);

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
  // The leader is gone; if nothing else of its group is, the group's ID may be reused: forget it.
  child.once('exit', () => {
    if (tree?.running()) return;
    if (tree) untrackTree(tree);
    unfinished.delete(shutdown);
  });

  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => options.onStderr?.(text));
  // Writes to a process that is gone fail through the writer; the stream error must not crash us.
  child.stdin!.on('error', () => undefined);

  const reader = new ChildStdoutReader(child, ended, options.maxMessageBytes);
  const writer = new StreamMessageWriter(child.stdin!);

  /** Whether any of the process (its group and their descendants, or the process alone) is still there. */
  const alive = (): boolean => {
    if (pid === undefined) return false;
    if (tree) return tree.running();
    return child.exitCode === null && child.signalCode === null;
  };
  const signal = (name: NodeJS.Signals): void => {
    if (pid === undefined) return;
    if (!tree) child.kill(name);
    else if (name === 'SIGKILL') tree.kill();
    else tree.signal(name);
  };
  const goneWithin = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const deadline = Date.now() + ms;
      const check = (): void => {
        if (!alive()) resolve(true);
        else if (Date.now() >= deadline) resolve(false);
        else setTimeout(check, POLL_MS);
      };
      check();
    });

  let stopping: Promise<ProcessExit> | undefined;
  const stop = async (graceMs: number): Promise<ProcessExit> => {
    if (alive()) {
      child.stdin!.end();
      if (!(await goneWithin(graceMs))) {
        signal('SIGTERM');
        if (!(await goneWithin(graceMs))) {
          signal('SIGKILL');
          await goneWithin(graceMs);
        }
      }
    }
    if (tree && !alive()) untrackTree(tree);
    // A descendant that escaped (setsid, then its parent died) may still hold the pipes: do not
    // wait on them forever.
    const settled = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), graceMs)),
    ]);
    if (!settled) {
      child.stdout!.destroy();
      child.stderr!.destroy();
    }
    return exited;
  };
  const shutdown = ({ graceMs = 2000 }: ShutdownOptions = {}): Promise<ProcessExit> => {
    stopping ??= stop(graceMs).finally(() => unfinished.delete(shutdown));
    return stopping;
  };
  if (pid !== undefined) unfinished.add(shutdown);

  return { reader, writer, child, exited, shutdown };
}
