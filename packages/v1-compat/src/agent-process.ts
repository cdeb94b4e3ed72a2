import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import {
  type ChildProcessTransport,
  describeExit,
  type MessageReader,
  type MessageReaderListener,
  type ProcessExit,
  type ShutdownOptions,
  StreamMessageReader,
  StreamMessageWriter,
} from '@acp-kit/sdk';

/** Options of {@link spawnAgentProcess}. */
export interface AgentProcessOptions {
  /** How error messages name the process, e.g. "v1 agent process". */
  name: string;
  /** Receives the process's stderr as UTF-8 text (read and dropped without it). */
  onStderr?: (text: string) => void;
  /** Environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

/** Polling interval while waiting for a process group to be gone. */
const POLL_MS = 25;

/** On POSIX the agent runs in a process group of its own, so the whole tree can be signalled. */
const GROUPS = process.platform !== 'win32';

/**
 * Whether a process of group `pgid` is running (zombies do not count: an exited process whose
 * parent has not reaped it yet — or never will, under an init that does not reap — is gone).
 * Linux reads /proc; elsewhere any member, zombie or not, counts.
 */
function groupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …" — comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

/**
 * Reports the end of the agent's stdout only once the agent process has exited, so the close
 * reason — and every pending request's error — names the exit.
 */
class ExitAwareReader implements MessageReader {
  readonly #inner: StreamMessageReader;
  readonly #ended: Promise<Error>;

  constructor(inner: StreamMessageReader, ended: Promise<Error>) {
    this.#inner = inner;
    this.#ended = ended;
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
}

/**
 * Spawns a wrapped agent the way a bridge must: in a process group of its own (POSIX), so that
 * {@link ChildProcessTransport.shutdown} reaches the whole tree — agents are often started
 * through a wrapper script, and a child that ignores EOF and SIGTERM must not outlive the bridge.
 *
 * `shutdown({ graceMs })` closes the agent's stdin, waits up to `graceMs` for every process of
 * the group to exit, then sends SIGTERM to the group, waits again, then SIGKILL; it resolves once
 * the group is gone (a descendant that left the group with `setsid` is out of reach). `exited`
 * settles when the agent process itself has exited and its pipes are closed.
 */
export function spawnAgentProcess(
  command: string,
  args: readonly string[],
  options: AgentProcessOptions,
): ChildProcessTransport {
  const child = spawn(command, args, {
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: GROUPS,
  });
  let spawnError: Error | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', (error) => {
      spawnError = error;
      if (child.pid === undefined) resolve({ code: null, signal: null });
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const ended = exited.then(
    (exit) =>
      new Error(
        spawnError
          ? `${options.name} failed: ${spawnError.message}`
          : `${options.name} ${describeExit(exit)}`,
      ),
  );
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => options.onStderr?.(text));
  // Writes to an agent that is gone fail through the writer; the stream error must not crash us.
  child.stdin.on('error', () => undefined);

  const pid = child.pid;
  /** Whether any process of the agent's group (or the agent, without groups) is still there. */
  const alive = (): boolean => {
    if (pid === undefined) return false;
    if (GROUPS) return groupRunning(pid);
    return child.exitCode === null && child.signalCode === null;
  };
  const signal = (name: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try {
      process.kill(GROUPS ? -pid : pid, name);
    } catch {
      // Already gone.
    }
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

  const shutdown = async ({ graceMs = 2000 }: ShutdownOptions = {}): Promise<ProcessExit> => {
    if (alive()) {
      child.stdin.end();
      if (!(await goneWithin(graceMs))) {
        signal('SIGTERM');
        if (!(await goneWithin(graceMs))) {
          signal('SIGKILL');
          await goneWithin(graceMs);
        }
      }
    }
    // A descendant that escaped the group may still hold the pipes: do not wait on them forever.
    const settled = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), graceMs)),
    ]);
    if (!settled) {
      child.stdout.destroy();
      child.stderr.destroy();
    }
    return exited;
  };

  return {
    reader: new ExitAwareReader(new StreamMessageReader(child.stdout), ended),
    writer: new StreamMessageWriter(child.stdin),
    child,
    exited,
    shutdown,
  };
}
