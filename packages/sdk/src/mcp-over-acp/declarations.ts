import type { McpCapabilities, McpServer, McpServerAcp } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';

/** Whether a session's `mcpServers` entry is a server the client provides over ACP. */
export function isMcpServerAcp(server: McpServer): server is McpServerAcp {
  return server.type === 'acp' && typeof (server as McpServerAcp).serverId === 'string';
}

/**
 * The MCP transports an agent takes only when it advertises them, by `type`: `true` when it does.
 * A type not listed is not checked: `stdio`, which every deployed agent takes (v1 makes it the
 * baseline), and unknown or `_`-prefixed types, which the schema says an agent keeps and may
 * refuse itself (the application sees them in `onNewSession` / `onResumeSession`).
 */
export type McpTransports = Readonly<Record<string, boolean>>;

/**
 * The gated transports of a v2 agent from the `capabilities.session.mcp` it advertises: `http`
 * and `acp`, each taken when advertised as an object.
 */
export function mcpTransportsOf(mcp: McpCapabilities | null | undefined): McpTransports {
  return { http: mcp?.http != null, acp: mcp?.acp != null };
}

const invalid = (pointer: string, message: string, expected: string): RpcError =>
  new RpcError(ErrorCodes.InvalidParams, `${pointer}: ${message}`, { pointer, expected });

/**
 * Refuses a session's `mcpServers` (`session/new`, `session/resume`, `session/fork`, v1's
 * `session/load`) with -32602 at the first entry the agent cannot take, its pointer in
 * `data.pointer`:
 * - a `name` an earlier server in the list already has (`/params/mcpServers/2/name`): the agent
 *   names each server's tools by it;
 * - a transport listed in `transports` as not advertised (`/params/mcpServers/2/type`), such as
 *   `http` without `capabilities.session.mcp.http` or `acp` without `capabilities.session.mcp.acp`;
 * - an `acp` server whose `serverId` was given twice (the draft: never reused on one connection).
 */
export function checkMcpServers(
  servers: readonly McpServer[] | null | undefined,
  transports: McpTransports,
): void {
  const names = new Set<string>();
  const serverIds = new Set<string>();
  for (const [i, server] of (servers ?? []).entries()) {
    const pointer = `/params/mcpServers/${i}`;
    const { name, type } = server as { name?: unknown; type: string };
    if (typeof name === 'string') {
      if (names.has(name)) {
        throw invalid(
          `${pointer}/name`,
          `an MCP server named ${JSON.stringify(name)} is already declared earlier in mcpServers`,
          'a name no other server in mcpServers has',
        );
      }
      names.add(name);
    }
    if (Object.hasOwn(transports, type) && transports[type] !== true) {
      throw invalid(
        `${pointer}/type`,
        `this agent does not connect MCP servers of type ${type} (it does not advertise capabilities.session.mcp.${type.replace(/^_/, '')})`,
        'a transport the agent advertises in capabilities.session.mcp',
      );
    }
    if (type !== 'acp') continue;
    const { serverId } = server as McpServerAcp;
    if (serverIds.has(serverId)) {
      throw invalid(
        `${pointer}/serverId`,
        `${serverId} is declared twice`,
        'a serverId not used by another server on this connection',
      );
    }
    serverIds.add(serverId);
  }
}

/**
 * {@link checkMcpServers} with only the `acp` transport gated: `supported` says whether the agent
 * connects MCP servers of type acp.
 *
 * @deprecated Use {@link checkMcpServers} with {@link mcpTransportsOf}, which also gates `http`.
 */
export function checkAcpServers(servers: readonly McpServer[] | null | undefined, supported: boolean): void {
  checkMcpServers(servers, { acp: supported });
}
