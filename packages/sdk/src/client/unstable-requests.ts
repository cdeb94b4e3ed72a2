/**
 * Which requests a {@link Client} refuses to send without the unstable opt-in: a method of the
 * unstable surface, a `systemPrompt`, an MCP server of type `acp`.
 */
import type { MethodName } from '@acp-kit/schema';
import { UNSTABLE_METHODS, unstableNotEnabled } from '../unstable-surface.js';

/**
 * The `TypeError` a client that did not opt in ({@link ClientOptions.unstable}) rejects a request
 * with when it uses the unstable surface; `undefined` when it may be sent.
 */
export function unstableRequestRefusal(method: string, params: unknown): TypeError | undefined {
  if (UNSTABLE_METHODS.has(method as MethodName)) return unstableNotEnabled(`${method}`, 'Client');
  if ((params as { systemPrompt?: unknown }).systemPrompt !== undefined)
    return unstableNotEnabled(`systemPrompt on ${method}`, 'Client');
  const servers = (params as { mcpServers?: { type?: unknown }[] }).mcpServers;
  if (servers?.some((server) => server.type === 'acp'))
    return unstableNotEnabled(`an MCP server of type acp on ${method}`, 'Client');
  return undefined;
}
