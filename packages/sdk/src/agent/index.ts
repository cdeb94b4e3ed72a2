/**
 * `@acp-kit/sdk/agent`: what an agent author uses — the `Agent`, its sessions, the prompts it
 * settles and the handles it reports work through, with their options. The internals an adapter,
 * a bridge or a history store builds on (the method gate and table, the subagent guard, the
 * session-ownership contract, `AdapterSession`) are on `@acp-kit/sdk/adapter`.
 *
 * @packageDocumentation
 */
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
export {
  AgentSession,
  type OutgoingMessage,
  type OutgoingMessageOptions,
  type SessionActivity,
} from './agent-session.js';
export type { AgentAuthOptions, AgentMethodOptions, MethodContext, SessionSetup } from './method-options.js';
export type { ProviderDefinition, ProviderRoute } from './providers.js';
export { ProviderRegistry } from './providers.js';
export {
  canElicit,
  type ElicitOptions,
  type FormElicitation,
  type UrlElicitation,
} from './asks/elicitation.js';
export type { ClientPeer } from './connection/client-peer.js';
export type { SessionSettings } from './sessions/session-settings.js';
export type { SubagentMember, SubagentOptions, SubagentPatch } from './sessions/subagents.js';
export { type InsertOptions, PendingPrompt } from './turns/pending-prompt.js';
export type { CompactionFields, CompactionHandle, CompactionOptions } from './work/compaction.js';
export type {
  TerminalFields,
  TerminalHandle,
  TerminalOptions,
  ToolCallFields,
  ToolCallHandle,
  ToolCallOptions,
} from './work/tool-calls.js';
