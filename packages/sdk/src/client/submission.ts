/**
 * A prompt's way from the optimistic entry to its outcome: the insertion receipt reconciles the
 * entry by `messageId`, a rejection is recorded, and a prompt whose answer never came stays
 * "outcome unknown" rather than be matched by guesswork.
 */
import type { MessageId, PromptResponse } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ConversationStore, TurnEnd } from './conversation/index.js';

/** A prompt on its way: its optimistic entry and the insertion receipt to come. */
export interface Submission {
  /** The optimistic entry's ID in the {@link ConversationStore}. */
  readonly localId: string;
  /**
   * Resolves with the inserted message's ID; rejects with the agent's JSON-RPC error. The store
   * records either outcome, so this promise may be ignored: an unobserved rejection is never
   * reported as unhandled.
   */
  readonly messageId: Promise<MessageId>;
  /**
   * Resolves when the work that took this prompt in ends: the first `idle` with a stop reason
   * after its insertion, never the previous turn's (see `ConversationStore.turnEnd`). Rejects like
   * `messageId` when the prompt was rejected, and when the end cannot be observed (outcome unknown,
   * connection lost). An unobserved rejection is never reported as unhandled.
   */
  readonly turnEnd: Promise<TurnEnd>;
}

/**
 * Records in `store` how the prompt of its pending entry `localId` ends, from `receipt` (the
 * `session/prompt` request sent for it), and returns the {@link Submission} a caller may ignore.
 */
export function reconcileSubmission(
  store: ConversationStore,
  localId: string,
  receipt: Promise<PromptResponse>,
): Submission {
  const messageId = receipt.then(
    ({ messageId: id }) => {
      store.resolvePending(localId, id);
      return id;
    },
    (error: unknown) => {
      if (error instanceof RpcError && isOutcomeUnknown(error)) store.markOutcomeUnknown(localId);
      else store.rejectPending(localId, error);
      throw error;
    },
  );
  // The store has recorded the outcome; a caller that ignores the promise must not crash the process.
  messageId.catch(() => undefined);
  const turnEnd = store.turnEnd(localId);
  turnEnd.catch(() => undefined);
  return { localId, messageId, turnEnd };
}

/** Errors after which the prompt may or may not have been inserted: no answer ever came. */
function isOutcomeUnknown(error: RpcError): boolean {
  return error.code === ErrorCodes.ConnectionClosed || error.code === ErrorCodes.OutgoingBufferFull;
}
