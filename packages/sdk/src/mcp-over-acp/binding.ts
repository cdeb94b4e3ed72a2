import type { McpError, MessageMcpResponse } from '@acp-kit/schema';
import { RpcError } from '../rpc/errors.js';

/**
 * MCP over ACP (upstream's unstable surface, the mcp-over-acp draft): the facts both sides of the
 * binding share — the method, the MCP revision it carries, the inner `_meta` keys every request
 * carries, and the outer error codes reserved for failures of the binding itself.
 */

/** The ACP method that carries MCP requests (agent → client) and their notifications (client → agent). */
export const MCP_MESSAGE_METHOD = 'mcp/message';

/** The MCP revision the binding carries: stateless, each request says its version in `_meta`. */
export const MCP_OVER_ACP_PROTOCOL_VERSION = '2026-07-28';

/** Inner `_meta` keys of every MCP request (the stateless revision has no `initialize`). */
export const MCP_META = {
  /** The MCP protocol version of the request. */
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  /** The caller's MCP client capabilities. */
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  /** The caller's MCP client info (`name`, `version`). */
  clientInfo: 'io.modelcontextprotocol/clientInfo',
} as const;

/**
 * Outer JSON-RPC error codes of the binding: the request never reached an MCP server or the server
 * gave no MCP outcome. An MCP server's own error is not one of these: it travels inside a
 * successful result (`{ error }`).
 */
export const McpBindingErrors = {
  /** The envelope is malformed, or its `requestId` is already active for that server. */
  InvalidParams: -32602,
  /** The request was cancelled (`$/cancel_request`, the server withdrawn, the connection closed). */
  RequestCancelled: -32800,
  /** The server has as many active requests as it takes. */
  ResourceLimitExceeded: -33000,
  /** No server with that `serverId` is provided on this connection (never was, or was withdrawn). */
  ServerUnavailable: -33001,
  /** The server failed without an MCP outcome. */
  BackendFailed: -33002,
} as const;

/** The inner outcome of one MCP request: its result (any JSON value, null included) or its MCP error. */
export type McpOutcome = MessageMcpResponse;

/** Whether an outcome is an MCP error (otherwise it is a result). */
export function isMcpErrorOutcome(outcome: McpOutcome): outcome is { error: McpError } {
  return !Object.hasOwn(outcome, 'result');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is an MCP error object: an integer `code` and a string `message`. */
export function isMcpError(value: unknown): value is McpError {
  return isObject(value) && Number.isInteger(value.code) && typeof value.message === 'string';
}

/**
 * Reads an `mcp/message` result as its outcome, or undefined when it carries neither a result nor
 * a valid MCP error. A result wins when both are present (the draft's rule for receivers).
 */
export function parseMcpOutcome(value: unknown): McpOutcome | undefined {
  if (!isObject(value)) return undefined;
  const meta = isObject(value._meta) ? { _meta: value._meta } : {};
  if (Object.hasOwn(value, 'result')) return { result: value.result, ...meta };
  if (isMcpError(value.error)) return { error: value.error, ...meta };
  return undefined;
}

/** The MCP client identity a caller puts in each request's inner `_meta`. */
export interface McpClientIdentity {
  /** MCP client capabilities (default `{}`). */
  capabilities?: Record<string, unknown>;
  /** MCP client info, for example `{ name: 'my-agent', version: '1.0.0' }`. */
  info?: { name: string; version: string; [key: string]: unknown };
}

/**
 * The inner params with the per-request `_meta` the stateless MCP revision requires (protocol
 * version, client capabilities, client info), keeping whatever the caller already put there.
 */
export function withMcpRequestMeta(
  params: Record<string, unknown> | null | undefined,
  identity: McpClientIdentity = {},
): Record<string, unknown> {
  const base = params ?? {};
  const meta: Record<string, unknown> = { ...(isObject(base._meta) ? base._meta : {}) };
  meta[MCP_META.protocolVersion] ??= MCP_OVER_ACP_PROTOCOL_VERSION;
  meta[MCP_META.clientCapabilities] ??= identity.capabilities ?? {};
  if (identity.info !== undefined) meta[MCP_META.clientInfo] ??= identity.info;
  return { ...base, _meta: meta };
}

/** The -33001 for a server this connection does not provide. */
export function serverUnavailable(serverId: string, why: string): RpcError<{ serverId: string }> {
  return new RpcError(McpBindingErrors.ServerUnavailable, `MCP server ${serverId} is not available: ${why}`, {
    serverId,
  });
}
