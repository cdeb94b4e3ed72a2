/** Why a {@link ConversationStoreError} was thrown. */
export type ConversationStoreErrorCode =
  | 'unknown_local_id'
  | 'duplicate_local_id'
  | 'invalid_transition'
  /** A turn end cannot be known: the submission's outcome is unknown (no response came). */
  | 'outcome_unknown'
  /** A turn end cannot be seen: the connection to the agent was lost first. */
  | 'disconnected'
  /** A turn end will not be seen: the session was forgotten or the entry dismissed. */
  | 'forgotten';

/**
 * Thrown for a misuse of the local-submission API (an unknown or reused `localId`, resolving a
 * rejected submission, …), and the reason a turn-end promise rejects when the end cannot be
 * observed. Agent input never throws; it produces diagnostics instead.
 */
export class ConversationStoreError extends Error {
  override readonly name = 'ConversationStoreError';

  constructor(
    /** Machine-readable reason. */
    readonly code: ConversationStoreErrorCode,
    message: string,
    /** The local submission involved. */
    readonly localId: string,
  ) {
    super(message);
  }
}
