export {
  isMcpErrorOutcome,
  MCP_MESSAGE_METHOD,
  MCP_META,
  MCP_OVER_ACP_PROTOCOL_VERSION,
  McpBindingErrors,
  type McpClientIdentity,
  type McpOutcome,
  parseMcpOutcome,
  withMcpRequestMeta,
} from './binding.js';
export { type McpCallOptions, type McpNotice, McpOverAcpCaller } from './caller.js';
export {
  checkAcpServers,
  checkMcpServers,
  isMcpServerAcp,
  type McpTransports,
  mcpTransportsOf,
} from './declarations.js';
export {
  type McpNotificationSender,
  type McpServerHandler,
  McpServerHost,
  type McpServerHostOptions,
  McpServerRegistration,
  type McpServerRegistrationOptions,
  type McpServerRequest,
} from './host.js';
export { AcpMcpServerTransport } from './mcp-transport.js';
export { McpCallError, McpServerHandle, type McpTool } from './server-handle.js';
