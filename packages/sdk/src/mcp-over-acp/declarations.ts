import type { McpServer, McpServerAcp } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';

/** Whether a session's `mcpServers` entry is a server the client provides over ACP. */
export function isMcpServerAcp(server: McpServer): server is McpServerAcp {
  return server.type === 'acp' && typeof (server as McpServerAcp).serverId === 'string';
}

/**
 * Refuses a session's `mcpServers` with -32602 at the first entry the agent cannot take: an `acp`
 * server when the agent does not connect them (no `capabilities.session.mcp.acp`), or a serverId
 * given twice (the draft: never reused on one connection).
 */
export function checkAcpServers(servers: readonly McpServer[] | null | undefined, supported: boolean): void {
  const seen = new Set<string>();
  for (const [i, server] of (servers ?? []).entries()) {
    if (server.type !== 'acp') continue;
    const pointer = `/params/mcpServers/${i}`;
    if (!supported) {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `${pointer}/type: this agent does not connect MCP servers of type acp (it does not advertise capabilities.session.mcp.acp)`,
        {
          pointer: `${pointer}/type`,
          expected: 'a transport the agent advertises in capabilities.session.mcp',
        },
      );
    }
    const { serverId } = server as McpServerAcp;
    if (seen.has(serverId)) {
      throw new RpcError(ErrorCodes.InvalidParams, `${pointer}/serverId: ${serverId} is declared twice`, {
        pointer: `${pointer}/serverId`,
        expected: 'a serverId not used by another server on this connection',
      });
    }
    seen.add(serverId);
  }
}
