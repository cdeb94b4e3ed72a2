export {
  Agent,
  type AgentConnection,
  type AgentOptions,
  type HandlerErrorContext,
  PROTOCOL_VERSION,
  type PromptContext,
} from './agent.js';
export {
  AgentSession,
  type OutgoingMessage,
  type OutgoingMessageOptions,
  type SessionActivity,
} from './agent-session.js';
export type { ClientPeer } from './client-peer.js';
export { type InsertOptions, PendingPrompt } from './pending-prompt.js';
export type {
  ForwardedError,
  ForwardedPrompt,
  ForwardedReceipt,
  OwnershipHost,
  PromptRoute,
  SessionOwnership,
} from './session-ownership.js';
