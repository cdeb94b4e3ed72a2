// JSON-RPC core and transports (rpc/, transports/)
export * from './rpc/index.js';
export { ajvCheck } from './rpc/ajv-check.js';
export * from './transports/index.js';
export * from './transcript/index.js';
// Client-side conversation state (client/conversation/) and agent-side retained history (history/)
export * from './client/index.js';
// Agent side: sessions, pending prompts settled only by insert()/reject() (agent/)
export * from './agent/index.js';
export * from './history/index.js';
// Wire codecs: the version a connection speaks, chosen at initialize (codec/)
export * from './codec/index.js';
// MCP over ACP (unstable): MCP servers the client provides over the ACP connection (mcp-over-acp/)
export * from './mcp-over-acp/index.js';
// Upstream's unstable surface: what `unstable: true` enables on an Agent, a Client and a store
export {
  UNSTABLE_AGENT_CAPABILITIES,
  UNSTABLE_METHODS,
  UNSTABLE_PLAN_TYPES,
  UNSTABLE_UPDATE_KINDS,
  unstableCapabilitiesIn,
} from './unstable-surface.js';
