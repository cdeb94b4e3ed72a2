export { ConversationStore } from './conversation-store.js';
export { ConversationStoreError, type ConversationStoreErrorCode } from './errors.js';
export type { IdleOutcome, TurnEnd } from './turn-end.js';
export type {
  BackgroundWorkView,
  CompactionView,
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
  NoticeView,
  OtherUpdateView,
  PlanView,
  SessionStateView,
  StoredMeta,
  SubagentView,
  TerminalView,
  ToolCallView,
  WorkState,
} from './types.js';
