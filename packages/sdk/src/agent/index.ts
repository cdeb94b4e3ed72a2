export {
  Agent,
  type AgentConnection,
  type AgentOptions,
  type HandlerErrorContext,
  PROTOCOL_VERSION,
  type PromptContext,
  type StableAgentCapabilities,
  type StableIf,
  type StableOnly,
} from './agent.js';
export { AdapterSession, type AdapterSessionOptions, type ReceivedPrompt } from './adapter-session.js';
export {
  AgentSession,
  type OutgoingMessage,
  type OutgoingMessageOptions,
  type SessionActivity,
} from './agent-session.js';
export type { ClientPeer } from './connection/client-peer.js';
export { connectionPeer, type ConnectionPeerOptions } from './connection/connection-peer.js';
export { ConnectionState as AgentConnectionState } from './connection/connection-state.js';
export { isAdvertised } from './connection/capability-paths.js';
export { type Admission, MethodGate, WAY_IN_AND_OUT } from './connection/method-gate.js';
export {
  type Advertisement,
  type AgentMethodHandlers,
  type GateOf,
  type MethodRefusalData,
  MethodTable,
} from './connection/method-table.js';
export { replayCursorOf } from './replay/replay-cursor.js';
export { checkSystemPrompt } from './sessions/system-prompt.js';
export type { CompactionFields, CompactionHandle, CompactionOptions } from './work/compaction.js';
export { applyConfigOption } from './sessions/config-options.js';
export {
  canElicit,
  type ElicitOptions,
  type FormElicitation,
  type UrlElicitation,
} from './asks/elicitation.js';
export type { AgentAuthOptions, AgentMethodOptions, MethodContext, SessionSetup } from './method-options.js';
export { type InsertOptions, PendingPrompt } from './turns/pending-prompt.js';
export type {
  ForwardedAnswer,
  ForwardedError,
  ForwardedPrompt,
  ForwardedReceipt,
  ForwardedRequest,
  OwnershipHost,
  PromptRoute,
  SessionOwnership,
} from './sessions/session-ownership.js';
export { DEFAULT_LIST_PAGE_SIZE, listSessionPage, sessionInfo } from './sessions/session-directory.js';
export { ProviderRegistry } from './providers.js';
export type { ProviderDefinition, ProviderRoute } from './providers.js';
export type { SessionSettings } from './sessions/session-settings.js';
export type { SubagentMember, SubagentOptions, SubagentPatch } from './sessions/subagents.js';
// The subagent guard, for adapters that keep sessions of their own (the v1 agent bridge).
export {
  CHILD_MUTATIONS,
  CHILD_UNGUARDED,
  cancellableAfter,
  childRefusal,
  guardSubagents,
} from './sessions/subagents.js';
export type {
  TerminalFields,
  TerminalHandle,
  TerminalOptions,
  ToolCallFields,
  ToolCallHandle,
  ToolCallOptions,
  WorkRegistry,
} from './work/tool-calls.js';
