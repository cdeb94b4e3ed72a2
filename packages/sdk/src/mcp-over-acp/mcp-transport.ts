import { MCP_META, type McpOutcome } from './binding.js';
import type { McpServerHost, McpServerRegistration, McpServerRequest } from './host.js';

/** A JSON-RPC message as an MCP SDK transport carries it. */
type JsonRpcMessage = {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** What the MCP SDK passes with an outgoing message: the request a notification belongs to. */
interface SendOptions {
  relatedRequestId?: string | number;
}

/** The MCP revision the bridge opens a stateful MCP server with (one every MCP SDK release since mid-2025 speaks). */
const SESSION_PROTOCOL_VERSION = '2025-06-18';
const HANDSHAKE_ID = 'acp-kit:initialize';

/**
 * An MCP server transport over ACP (unstable): the object an MCP SDK server `connect`s to —
 * `start`, `send`, `close`, `onmessage`, `onclose`, `onerror`, the shape of
 * `@modelcontextprotocol/sdk`'s `Transport` — whose messages are the `mcp/message` requests agents
 * send for one server registered on a {@link McpServerHost}.
 *
 * The binding carries the stateless MCP revision (each request brings its version and client
 * capabilities in `_meta`); a stateful MCP server expects `initialize` first, so before the first
 * request the transport opens the server once with the first caller's client info and
 * capabilities. Notifications the server sends for a request (progress…) reach the agent as
 * `mcp/message` notifications; requests the server would send the caller (sampling, elicitation)
 * have no way there in the binding and are answered with an MCP error.
 */
export class AcpMcpServerTransport {
  /** Set by the MCP server when it connects. */
  onmessage?: (message: JsonRpcMessage) => void;
  /** Set by the MCP server when it connects. */
  onclose?: () => void;
  /** Set by the MCP server when it connects. */
  onerror?: (error: Error) => void;
  /** The registration behind it: give `registration.declaration` in a session's `mcpServers`. */
  readonly registration: McpServerRegistration;
  readonly #pending = new Map<string | number, (message: JsonRpcMessage) => void>();
  readonly #requests = new Map<string | number, McpServerRequest>();
  #opened: Promise<void> | undefined;
  #started = false;
  #closed = false;

  constructor(host: McpServerHost, options: { name: string; serverId?: string; maxActiveRequests?: number }) {
    this.registration = host.register({
      ...options,
      handler: (request) => this.#forward(request),
    });
  }

  /** Called by the MCP server's `connect`. */
  async start(): Promise<void> {
    this.#started = true;
  }

  /** Called by the MCP server for each message it sends. */
  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (message.id !== undefined && message.method === undefined) {
      this.#pending.get(message.id)?.(message);
      return;
    }
    if (message.method === undefined) return;
    if (message.id !== undefined) {
      // A request from the server to its caller: the binding has no way to carry it.
      this.onmessage?.({
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: -32601,
          message: `MCP over ACP carries no server-to-client request (${message.method})`,
        },
      });
      return;
    }
    const related = options?.relatedRequestId ?? progressRequest(message, this.#requests);
    const request = related === undefined ? undefined : this.#requests.get(related);
    await request?.notify(message.method, message.params);
  }

  /** Withdraws the server from the host and tells the MCP server it is closed. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.registration.dispose();
    for (const resolve of this.#pending.values())
      resolve({ jsonrpc: '2.0', error: { code: -32000, message: 'transport closed' } });
    this.#pending.clear();
    this.onclose?.();
  }

  #exchange(
    message: JsonRpcMessage & { id: string | number },
    signal?: AbortSignal,
  ): Promise<JsonRpcMessage> {
    return new Promise((resolve, reject) => {
      if (!this.#started || this.onmessage === undefined) {
        reject(new Error('the MCP server is not connected to this transport'));
        return;
      }
      const abort = () => {
        this.#pending.delete(message.id);
        this.onmessage?.({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: message.id, reason: String(signal?.reason ?? 'cancelled') },
        });
        reject(signal?.reason);
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      this.#pending.set(message.id, (answer) => {
        signal?.removeEventListener('abort', abort);
        this.#pending.delete(message.id);
        resolve(answer);
      });
      this.onmessage(message);
    });
  }

  /** Opens the stateful MCP server once, with the first caller's client info and capabilities. */
  #open(params: Record<string, unknown> | undefined): Promise<void> {
    this.#opened ??= (async () => {
      const meta = (params?._meta ?? {}) as Record<string, unknown>;
      const answer = await this.#exchange({
        jsonrpc: '2.0',
        id: HANDSHAKE_ID,
        method: 'initialize',
        params: {
          protocolVersion: SESSION_PROTOCOL_VERSION,
          capabilities: meta[MCP_META.clientCapabilities] ?? {},
          clientInfo: meta[MCP_META.clientInfo] ?? { name: 'acp-kit mcp-over-acp', version: '0' },
        },
      });
      if (answer.error !== undefined)
        throw new Error(`the MCP server refused initialize: ${answer.error.message}`);
      this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
    })();
    const opened = this.#opened;
    opened.catch(() => {
      if (this.#opened === opened) this.#opened = undefined;
    });
    return opened;
  }

  async #forward(request: McpServerRequest): Promise<McpOutcome> {
    await this.#open(request.params);
    this.#requests.set(request.requestId, request);
    try {
      const answer = await this.#exchange(
        {
          jsonrpc: '2.0',
          id: request.requestId,
          method: request.method,
          ...(request.params === undefined ? {} : { params: request.params }),
        },
        request.signal,
      );
      if (answer.error !== undefined) return { error: answer.error };
      return { result: answer.result ?? null };
    } finally {
      this.#requests.delete(request.requestId);
    }
  }
}

/** The active request a progress notification names by its token (the MCP SDK uses the request's id). */
function progressRequest(
  message: JsonRpcMessage,
  requests: ReadonlyMap<string | number, McpServerRequest>,
): string | number | undefined {
  const token = message.params?.progressToken;
  return (typeof token === 'string' || typeof token === 'number') && requests.has(token) ? token : undefined;
}
