import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import type { ClientPeer } from '../connection/client-peer.js';

/** How {@link askAttachedClients} asks, and what it answers when no client does. */
export interface AttachedClientsAsk<T> {
  /**
   * The clients that may be asked now, among those not asked yet: the one to ask first (normally
   * the one whose prompt started the work) in front. Empty when none is left.
   */
  candidates(asked: ReadonlySet<ClientPeer>): ClientPeer[];
  /** Sends the question to `peer` (withdrawn with `$/cancel_request` when `signal` aborts). */
  ask(peer: ClientPeer, signal: AbortSignal): Promise<unknown>;
  /** Whether a client's answer is one (anything else fails with -32603 and `invalid`). */
  isAnswer(value: unknown): value is T;
  /** The -32603 message for an answer that is not one. */
  readonly invalid: string;
  /** The outcome when no client is left to ask, or once `signal` aborts. */
  readonly cancelled: T;
  /** Called before each round of asking. */
  beforeAsking?(): Promise<void>;
}

/** How one round of asking ended. */
type Round<T> =
  | { readonly kind: 'answer'; readonly value: T }
  | { readonly kind: 'gone' }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'cancelled' };

/**
 * Asks a question of the session's clients so that no client can freeze the work waiting on it:
 * first the one in front of the candidates alone; once it has gone — also while the question is
 * pending — every other candidate at once, the first answer settling the question and withdrawing
 * it (`$/cancel_request`) from the rest, so one client that stays silent cannot keep the others
 * from answering. With no candidate left, or once `signal` aborts (which withdraws the question
 * without waiting for any client to acknowledge that), the outcome is `cancelled`. A client that
 * stays connected and answers with an error, or with something that is not an answer, fails the
 * question only when no other client of its round answers. What permission requests and
 * elicitations share.
 */
export async function askAttachedClients<T>(how: AttachedClientsAsk<T>, signal: AbortSignal): Promise<T> {
  const asked = new Set<ClientPeer>();
  for (let round = 0; ; round += 1) {
    const candidates = how.candidates(asked);
    if (candidates.length === 0 || signal.aborted) return how.cancelled;
    const peers = round === 0 ? candidates.slice(0, 1) : candidates;
    for (const peer of peers) asked.add(peer);
    await how.beforeAsking?.();
    const outcome = await askRound(how, peers, signal);
    if (outcome.kind === 'answer') return outcome.value;
    if (outcome.kind === 'cancelled') return how.cancelled;
    if (outcome.kind === 'failed') throw outcome.error;
    // Every client of the round went away while asked: ask the ones left, if any.
  }
}

/** Asks `peers` at once; the first answer wins and the question is withdrawn from the others. */
function askRound<T>(
  how: AttachedClientsAsk<T>,
  peers: readonly ClientPeer[],
  signal: AbortSignal,
): Promise<Round<T>> {
  const withdraw = new AbortController();
  let onAbort: () => void = () => undefined;
  return new Promise<Round<T>>((resolve) => {
    if (signal.aborted) return resolve({ kind: 'cancelled' });
    onAbort = () => resolve({ kind: 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    let unanswered = peers.length;
    let failure: { error: unknown } | undefined;
    const refused = (peer: ClientPeer, error: unknown): void => {
      // A client that went away is no failure: another one may still answer.
      if (peer.open) failure ??= { error };
      unanswered -= 1;
      if (unanswered === 0) resolve(failure ? { kind: 'failed', error: failure.error } : { kind: 'gone' });
    };
    for (const peer of peers) {
      // A peer that throws instead of rejecting is refused like one that rejects.
      Promise.resolve()
        .then(() => how.ask(peer, withdraw.signal))
        .then(
          (response) => {
            if (how.isAnswer(response)) resolve({ kind: 'answer', value: response });
            else refused(peer, new RpcError(ErrorCodes.InternalError, how.invalid));
          },
          (error: unknown) => refused(peer, error),
        );
    }
  }).finally(() => {
    signal.removeEventListener('abort', onAbort);
    // Withdraws the question from every client of the round still asked.
    withdraw.abort();
  });
}
