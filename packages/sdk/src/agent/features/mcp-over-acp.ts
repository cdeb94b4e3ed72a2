import type { MethodFeature } from '../connection/serving.js';

/**
 * MCP over ACP (upstream's unstable surface, the mcp-over-acp draft), served when the agent is
 * given the `mcpOverAcp` option, which also advertises `capabilities.session.mcp.acp`: the
 * `mcp/message` notifications a client sends for the agent's active `mcp/message` requests
 * (progress, subscription events) go to the request they name; one for no active request is
 * dropped. The requests themselves go the other way, from `agent.mcp`.
 */
export const mcpOverAcp: MethodFeature = (agent) => {
  const mcp = agent.mcp;
  if (mcp === undefined) return {};
  return {
    'mcp/message': (params, _context, connection) => {
      mcp.deliver(params, connection.peer);
    },
  };
};
