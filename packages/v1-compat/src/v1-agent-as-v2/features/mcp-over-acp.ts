import { v2ToV1MessageMcpNotification } from '../../generated/compat/converters.js';
import type { BridgeFeature } from './index.js';

/**
 * MCP over ACP, the client's half: an MCP notification from a client's server (type acp) on its
 * way to the v1 agent. The servers are declared at session setup (`ClientLink.declare`); the v1
 * agent's requests to them are routed in `v1-agent-handlers.ts`.
 */
export const mcpOverAcp: BridgeFeature = (bridge) => ({
  'mcp/message': async (params) => {
    await bridge.v1.sendNotification('mcp/message', v2ToV1MessageMcpNotification(params));
  },
});
