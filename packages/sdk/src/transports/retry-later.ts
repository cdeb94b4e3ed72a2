/**
 * When a refused request of the Streamable HTTP client is tried again: a `503` or `429` with a
 * `Retry-After` (the server's limits — sockets waiting to authenticate, a paused reader, the
 * handshake rate — said so before reading the request, so sending it again cannot do it twice).
 * At most {@link RETRY_LATER_ATTEMPTS} tries in all, each wait at most {@link RETRY_LATER_MAX_MS}.
 */

/** Tries in all (the first one included) of a request answered "retry later". */
export const RETRY_LATER_ATTEMPTS = 6;
/** The longest wait before another try, whatever `Retry-After` asks. */
export const RETRY_LATER_MAX_MS = 5_000;

/**
 * How long to wait before trying again a request answered `status` with `retryAfter` on try
 * `attempt` (1-based), or `undefined` when it is not tried again.
 */
export function retryLaterMs(
  status: number,
  retryAfter: string | null | undefined,
  attempt: number,
): number | undefined {
  if ((status !== 503 && status !== 429) || retryAfter == null || attempt >= RETRY_LATER_ATTEMPTS)
    return undefined;
  const seconds = Number(retryAfter.trim());
  // An HTTP date, or nonsense: a second.
  const ms = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
  return Math.min(ms, RETRY_LATER_MAX_MS);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function waitUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
