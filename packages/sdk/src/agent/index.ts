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
export type { ClientPeer } from './client-peer.js';
export { connectionPeer, type ConnectionPeerOptions } from './connection-peer.js';
export { ConnectionState as AgentConnectionState } from './connection-state.js';
export { isAdvertised } from './capability-paths.js';
export { type Admission, MethodGate, WAY_IN_AND_OUT } from './method-gate.js';
export {
  type Advertisement,
  type AgentMethodHandlers,
  type GateOf,
  type MethodRefusalData,
  MethodTable,
} from './method-table.js';
export { replayCursorOf } from './replay-cursor.js';
export { checkSystemPrompt } from './system-prompt.js';
export type { CompactionFields, CompactionHandle, CompactionOptions } from './compaction.js';
export { applyConfigOption } from './config-options.js';
export { canElicit, type ElicitOptions, type FormElicitation, type UrlElicitation } from './elicitation.js';
export type { AgentAuthOptions, AgentMethodOptions, MethodContext, SessionSetup } from './method-options.js';
export { type InsertOptions, PendingPrompt } from './pending-prompt.js';
export type {
  ForwardedAnswer,
  ForwardedError,
  ForwardedPrompt,
  ForwardedReceipt,
  ForwardedRequest,
  OwnershipHost,
  PromptRoute,
  SessionOwnership,
} from './session-ownership.js';
export { DEFAULT_LIST_PAGE_SIZE, listSessionPage, sessionInfo } from './session-directory.js';
export { ProviderRegistry } from './providers.js';
export type { ProviderDefinition, ProviderRoute } from './providers.js';
export type { SessionSettings } from './session-settings.js';
export type { SubagentMember, SubagentOptions, SubagentPatch } from './subagents.js';
// The subagent guard, for adapters that keep sessions of their own (the v1 agent bridge).
export {
  CHILD_MUTATIONS,
  CHILD_UNGUARDED,
  cancellableAfter,
  childRefusal,
  guardSubagents,
} from './subagents.js';
export type {
  TerminalFields,
  TerminalHandle,
  TerminalOptions,
  ToolCallFields,
  ToolCallHandle,
  ToolCallOptions,
  WorkRegistry,
} from './tool-calls.js';
