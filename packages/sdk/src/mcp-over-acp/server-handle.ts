import type { ClientPeer } from '../agent/connection/client-peer.js';
import type { McpCallOptions, McpOverAcpCaller } from './caller.js';

/** An MCP server's own error answer, thrown by {@link McpServerHandle}. */
export class McpCallError extends Error {
  /** The MCP error code. */
  readonly code: number;
  /** The MCP error data, if any. */
  readonly data: unknown;

  constructor(error: { code: number; message: string; data?: unknown }) {
    super(error.message);
    this.name = 'McpCallError';
    this.code = error.code;
    this.data = error.data;
  }
}

/** A tool as `tools/list` describes it. */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

/** One declared server, reached through {@link McpOverAcpCaller}. */
export class McpServerHandle {
  readonly #caller: McpOverAcpCaller;
  readonly #client: ClientPeer;
  /** The server's ID on the client's connection. */
  readonly serverId: string;

  constructor(caller: McpOverAcpCaller, client: ClientPeer, serverId: string) {
    this.#caller = caller;
    this.#client = client;
    this.serverId = serverId;
  }

  /** Sends one MCP request; resolves with its result, rejects with {@link McpCallError} for an MCP error. */
  async call(method: string, params?: Record<string, unknown>, options?: McpCallOptions): Promise<unknown> {
    const outcome = await this.#caller.request(this.#client, this.serverId, method, params, options);
    if ('result' in outcome) return outcome.result;
    throw new McpCallError(outcome.error);
  }

  /** `tools/list`: the server's tools. */
  async listTools(options?: McpCallOptions): Promise<McpTool[]> {
    const result = (await this.call('tools/list', {}, options)) as { tools?: unknown } | null;
    return Array.isArray(result?.tools) ? (result.tools as McpTool[]) : [];
  }

  /** `tools/call`: runs one tool with its arguments and resolves with the MCP tool result. */
  callTool(
    name: string,
    args: Record<string, unknown> = {},
    options?: McpCallOptions,
  ): Promise<{ content?: unknown[]; isError?: boolean; [key: string]: unknown }> {
    return this.call('tools/call', { name, arguments: args }, options) as Promise<{
      content?: unknown[];
      isError?: boolean;
    }>;
  }
}
