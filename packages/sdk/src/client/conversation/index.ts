export { ConversationStore } from './conversation-store.js';
export { ConversationStoreError, type ConversationStoreErrorCode } from './errors.js';
export type {
  ConnectionState,
  ConversationChange,
  ConversationDiagnostic,
  ConversationDiagnosticCode,
  ConversationListener,
  ConversationMessage,
  ConversationSnapshot,
  ConversationStoreOptions,
  MessageKind,
  MessageOrigin,
  OtherUpdateView,
  PlanView,
  SessionStateView,
  StoredMeta,
  ToolCallView,
  WorkState,
} from './types.js';
