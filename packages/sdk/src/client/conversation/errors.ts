/** Why a {@link ConversationStoreError} was thrown. */
export type ConversationStoreErrorCode = 'unknown_local_id' | 'duplicate_local_id' | 'invalid_transition';

/**
 * Thrown for a misuse of the local-submission API (an unknown or reused `localId`, resolving a
 * rejected submission, …). Agent input never throws; it produces diagnostics instead.
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
