/** `setMaxListeners` of `node:events`, found at run time so that browsers load this file too. */
const events = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:events') as
  | { setMaxListeners?: (n: number, ...targets: EventTarget[]) => void }
  | undefined;

/**
 * Lets `signal` hold any number of abort listeners without Node's "possible EventTarget memory
 * leak" warning, which it prints once a signal has more than ten. For the signal a connection
 * hands to each of its requests and open streams: one listener per request in flight is the
 * connection's work, not a leak (each leaves when its request ends). Does nothing where the
 * runtime has no such limit (a browser).
 */
export function allowAbortListenerPerRequest(signal: AbortSignal): void {
  events?.setMaxListeners?.(0, signal);
}
