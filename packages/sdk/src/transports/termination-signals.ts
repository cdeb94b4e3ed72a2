import { constants } from 'node:os';
import { killTrackedGroups } from './process-group.js';

/** The signals that ask a command to stop: Ctrl-C, `kill`, and the terminal going away. */
export const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A wait for the first termination signal; see {@link onTerminationSignal}. */
export interface TerminationWatch {
  /** Resolves with the first SIGINT, SIGTERM or SIGHUP this process receives. */
  readonly signalled: Promise<NodeJS.Signals>;
  /** Stops waiting (the signal handlers stay: a later signal ends the process at once). */
  dispose(): void;
}

const waiters = new Set<(signal: NodeJS.Signals) => void>();
let installed = false;
let received = 0;

function onSignal(signal: NodeJS.Signals): void {
  received += 1;
  if (received === 1 && waiters.size > 0) {
    for (const waiter of [...waiters]) waiter(signal);
    return;
  }
  // A second signal during a graceful stop, or one nobody waits for: stop now, and take every
  // process group this process started along (the exit hook of process-group.ts does it too).
  killTrackedGroups();
  process.exit(128 + constants.signals[signal]);
}

/**
 * Waits for SIGINT, SIGTERM or SIGHUP so a command can stop gracefully: end what it started (for
 * agents spawned by {@link spawnTransport}, their whole process groups, within their grace bounds)
 * and return.
 *
 * From the first call on, this process handles those signals for good. The first one resolves
 * every watch still waiting. Any further one — a second Ctrl-C, a supervisor's repeated SIGTERM —
 * or one that arrives while nothing waits, ends the process at once with 128 + the signal's number,
 * after SIGKILL to every process group {@link spawnTransport} started that is not gone yet. So no
 * signal, once or repeated, leaves a spawned agent behind.
 */
export function onTerminationSignal(): TerminationWatch {
  if (!installed) {
    installed = true;
    for (const signal of TERMINATION_SIGNALS) process.on(signal, onSignal);
  }
  let waiter: ((signal: NodeJS.Signals) => void) | undefined;
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    waiter = (signal) => {
      waiters.delete(waiter!);
      resolve(signal);
    };
    waiters.add(waiter);
  });
  return { signalled, dispose: () => void waiters.delete(waiter!) };
}
