import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ClientPeer } from './client-peer.js';

/** How {@link askOneClientAtATime} asks, and what it answers when no client does. */
export interface OneClientAtATime<T> {
  /** The next client to ask, among those not asked yet (undefined: none is left). */
  next(asked: ReadonlySet<ClientPeer>): ClientPeer | undefined;
  /** Sends the question to `peer` (withdrawn with `$/cancel_request` when `signal` aborts). */
  ask(peer: ClientPeer, signal: AbortSignal): Promise<unknown>;
  /** Whether a client's answer is one (anything else fails with -32603 and `invalid`). */
  isAnswer(value: unknown): value is T;
  /** The -32603 message for an answer that is not one. */
  readonly invalid: string;
  /** The outcome when no client is left to ask, or once `signal` aborts. */
  readonly cancelled: T;
  /** Called before each client is asked. */
  beforeAsking?(): Promise<void>;
}

/**
 * Asks a question of one client at a time, so that a client that leaves never freezes the work
 * waiting on it: when the one asked has gone — also while the question is pending — the next one
 * is asked, and with none left (or once `signal` aborts, which withdraws the question without
 * waiting for the client to acknowledge that) the outcome is `cancelled`. What permission requests
 * and elicitations share.
 */
export async function askOneClientAtATime<T>(how: OneClientAtATime<T>, signal: AbortSignal): Promise<T> {
  const asked = new Set<ClientPeer>();
  for (;;) {
    const peer = how.next(asked);
    if (peer === undefined || signal.aborted) return how.cancelled;
    asked.add(peer);
    await how.beforeAsking?.();
    try {
      const withdrawn = abortedWith(signal, how.cancelled);
      const response = await Promise.race([how.ask(peer, signal), withdrawn.promise]).finally(
        withdrawn.dispose,
      );
      if (!how.isAnswer(response)) throw new RpcError(ErrorCodes.InternalError, how.invalid);
      return response;
    } catch (error) {
      if (signal.aborted) return how.cancelled;
      // The client went away while asked: ask another one, if any is left.
      if (!peer.open) continue;
      throw error;
    }
  }
}

/** Resolves `cancelled` once `signal` aborts; `dispose` removes the listener when the answer came first. */
function abortedWith<T>(signal: AbortSignal, cancelled: T): { promise: Promise<T>; dispose: () => void } {
  if (signal.aborted) return { promise: Promise.resolve(cancelled), dispose: () => undefined };
  let onAbort: () => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    onAbort = () => resolve(cancelled);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
