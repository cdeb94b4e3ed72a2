export { HistoryStoreError, type HistoryStoreErrorCode, type HistoryStoreErrorDetails } from './errors.js';
export { LogHistoryStore } from './log-history-store.js';
export { MemoryHistoryStore, type MemoryHistoryStoreOptions } from './memory-history-store.js';
export { issueMessageId, randomId, randomMessageId } from './message-ids.js';
export { replayUpdates, retainedMessages } from './replay.js';
export {
  DEFAULT_PAGE_SIZE,
  type HistorySession,
  type HistoryStore,
  type ListSessionsOptions,
  MAX_PAGE_SIZE,
  type MessagePage,
  type MessageRef,
  type MessageTarget,
  type NewHistorySession,
  type NewRetainedMessage,
  type ReadMessagesOptions,
  type ReplayVia,
  type RetainedMessage,
  type RetainedMessageKind,
  type SessionPage,
  type StreamMessagesOptions,
} from './history-store.js';
/**
 * The argument checks every {@link HistoryStore} implementation shares, so that each one rejects the
 * same inputs with the same error code and JSON pointer. For authors of a new history store.
 */
export { historyValidation } from './history-validation.js';
export { decodeListCursor, encodeListCursor } from './list-cursor.js';
export { LogFollowers } from './log-followers.js';
export { findUnstorableText, isStorableText, STORABLE_TEXT } from './storable-text.js';
export { MemorySessionLog, type MemorySessionLogOptions } from './memory-session-log.js';
export type {
  ListSessionRecordsOptions,
  LogEntry,
  LogListener,
  LogPage,
  LogSubscription,
  NewLogEntry,
  NewSessionRecord,
  ReadLogOptions,
  SeqRange,
  SessionConfig,
  SessionLog,
  SessionPatch,
  SessionRecord,
  SessionRecordPage,
  WriteBehindLimits,
} from './session-log.js';
export {
  CHUNK_OF,
  chunkUpdate,
  isMessageKind,
  type MessageChange,
  messageChange,
  messageUpdate,
} from './message-updates.js';
