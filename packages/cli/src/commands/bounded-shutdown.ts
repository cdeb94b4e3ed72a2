/** How long one step of a listening agent's shutdown may take before it is given up. */
export const SHUTDOWN_STEP_MS = 10_000;

/** How long the process may stay alive after its shutdown ran before it exits anyway. */
export const HELD_OPEN_MS = 5_000;

/**
 * Runs one shutdown step, giving it at most `ms`. A step that fails or runs out of time is reported
 * on stderr (`what` names it, `consequence` says what it leaves behind) and resolves `false`; the
 * shutdown then goes on, so a database that stopped answering cannot keep a stopped agent alive.
 */
export async function shutdownStep(
  command: string,
  what: string,
  step: () => Promise<void>,
  consequence: string,
  ms: number = SHUTDOWN_STEP_MS,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    const outcome = await Promise.race([step().then(() => 'done' as const), late]);
    if (outcome === 'done') return true;
    process.stderr.write(
      `acp-kit ${command}: ${what} did not finish within ${ms} ms; going on without it (${consequence})\n`,
    );
    return false;
  } catch (error) {
    process.stderr.write(
      `acp-kit ${command}: ${what} failed: ${error instanceof Error ? error.message : String(error)} (${consequence})\n`,
    );
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Called once a command's shutdown has run: if something still holds the event loop open after
 * `ms` (a socket or timer nobody closed), says what it is on stderr and exits with the exit code
 * already set. The timer does not itself keep the process alive.
 */
export function exitIfHeldOpen(command: string, ms: number = HELD_OPEN_MS): void {
  setTimeout(() => {
    const held = process
      .getActiveResourcesInfo()
      .filter((kind) => kind !== 'TTYWrap')
      .join(', ');
    process.stderr.write(
      `acp-kit ${command}: still held open ${ms} ms after stopping (${held || 'nothing named'}); exiting\n`,
    );
    process.exit();
  }, ms).unref();
}
