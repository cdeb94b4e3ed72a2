/**
 * The callers of `AgentSession.whenIdle` waiting for this process's turn to end: each resolves
 * once `settled` says so, checked whenever the session may have settled ({@link wake}).
 */
export class IdleWaiters {
  readonly #waiters = new Set<() => void>();
  readonly #settled: () => boolean;

  /** `settled` says whether no turn started here is open (or the session stopped following its log). */
  constructor(settled: () => boolean) {
    this.#settled = settled;
  }

  /** Resolves at once when settled, otherwise at the {@link wake} that finds it settled. */
  wait(): Promise<void> {
    if (this.#settled()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.add(resolve));
  }

  /** The session may have settled: when it did, every waiter resolves. */
  wake(): void {
    if (this.#waiters.size === 0 || !this.#settled()) return;
    for (const resolve of this.#waiters) resolve();
    this.#waiters.clear();
  }
}

/**
 * Runs `work` until it settles (its failure ignored) or `signal` aborts, whichever comes first;
 * at once when `signal` already aborted. The abort listener is released either way.
 */
export async function unlessWithdrawn(signal: AbortSignal, work: () => Promise<void>): Promise<void> {
  if (signal.aborted) return;
  let stop = (): void => undefined;
  const withdrawn = new Promise<void>((resolve) => {
    stop = resolve;
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  try {
    await Promise.race([work().catch(() => undefined), withdrawn]);
  } finally {
    stop();
  }
}
