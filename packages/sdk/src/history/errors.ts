/** Why a {@link HistoryStoreError} was thrown. */
export type HistoryStoreErrorCode =
  /** No session with that ID. */
  | 'session_not_found'
  /** `createSession` with an ID already in use. */
  | 'session_exists'
  /** No retained message with that kind and ID in the session. */
  | 'message_not_found'
  /** `appendMessage` with a kind and ID already retained in the session. */
  | 'duplicate_message'
  /** An argument has the wrong shape (see `pointer`). */
  | 'invalid_argument'
  /** The store was closed. */
  | 'closed'
  /** Another process holds a lock on the storage. */
  | 'locked'
  /** The storage cannot be written. */
  | 'read_only'
  /** The storage is damaged or is not a database. */
  | 'corrupt'
  /** The storage was written by a newer version of the store. */
  | 'unsupported_version'
  /** The storage is a valid database that belongs to something else; it is left untouched. */
  | 'not_a_history_store'
  /** Any other storage failure. */
  | 'io';

const RPC_CODES: Partial<Record<HistoryStoreErrorCode, number>> = {
  session_not_found: -32002,
  message_not_found: -32002,
  invalid_argument: -32602,
};

/** Details attached to a {@link HistoryStoreError}. */
export interface HistoryStoreErrorDetails {
  /** Storage location (a file path), for storage-level errors. */
  readonly path?: string;
  /** Session involved. */
  readonly sessionId?: string;
  /** Message involved. */
  readonly messageId?: string;
  /** JSON pointer into the offending argument, for `invalid_argument`. */
  readonly pointer?: string;
  /** The underlying error. */
  readonly cause?: unknown;
}

/** The one error type every {@link HistoryStore} implementation throws. */
export class HistoryStoreError extends Error {
  override readonly name = 'HistoryStoreError';
  /** Storage location, when the error is about storage. */
  readonly path: string | undefined;
  /** Session involved. */
  readonly sessionId: string | undefined;
  /** Message involved. */
  readonly messageId: string | undefined;
  /** JSON pointer into the offending argument. */
  readonly pointer: string | undefined;

  constructor(
    /** Machine-readable reason. */
    readonly code: HistoryStoreErrorCode,
    message: string,
    details: HistoryStoreErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.path = details.path;
    this.sessionId = details.sessionId;
    this.messageId = details.messageId;
    this.pointer = details.pointer;
  }

  /**
   * Whether the same call may succeed if tried again later: the storage could not be reached
   * (`io`, as while a database restarts) or was busy (`locked`). Every other code is final.
   */
  get transient(): boolean {
    return this.code === 'io' || this.code === 'locked';
  }

  /** The JSON-RPC error code an agent should answer with when this error ends a request. */
  get rpcCode(): number {
    return RPC_CODES[this.code] ?? -32603;
  }
}
