import {
  type CreateMcpHandlerOptions,
  createMcpHandler,
  type McpServerFactory,
  type ServerEventBus,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import { readSseData } from '../transports/sse-parser.js';
import { isMcpError, MCP_META, type McpOutcome } from './binding.js';
import type { McpServerHandler, McpServerRequest } from './host.js';

/** Options of {@link adaptMcpServer}. */
export interface AdaptMcpServerOptions
  extends Pick<CreateMcpHandlerOptions, 'bus' | 'maxSubscriptions' | 'onerror'> {
  /**
   * The largest message (one SSE event) the server may produce for one request, in bytes. Default
   * 4 MiB. A larger one fails the request (the agent gets -33002) instead of being held.
   */
  maxMessageBytes?: number;
}

/** A server written for `@modelcontextprotocol/server`, ready to register on a `McpServerHost`. */
export interface AdaptedMcpServer {
  /** Give it to `client.mcp.register({ name, handler })`. */
  readonly handler: McpServerHandler;
  /**
   * Publishes change events (`toolsChanged()`, `resourceUpdated(uri)`…) to the agent's open
   * `subscriptions/listen` requests that asked for them.
   */
  readonly notify: ServerNotifier;
  /** The event bus behind {@link notify} (the one given in the options, or an in-process one). */
  readonly bus: ServerEventBus;
  /** Ends open subscriptions and the server instances still serving requests. */
  close(): Promise<void>;
}

/** A JSON-RPC message as the MCP server answers. */
interface Message {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** The origin of the in-process requests: never resolved, never on the network. */
const IN_PROCESS_URL = 'http://mcp-over-acp.invalid/mcp';

/**
 * The methods whose `Mcp-Name` header mirrors a field of their params (the standard request
 * headers of the 2026-07-28 HTTP binding, which the package's pipeline checks).
 */
const NAME_FIELDS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header value carrying `value` as is when it is plain visible ASCII, else in the binding's Base64 form. */
const headerValue = (value: string): string =>
  /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value)
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** The `Mcp-Name` header of a request, when its method has one and its params carry the field. */
function nameHeader(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
  const field = Object.hasOwn(NAME_FIELDS, method) ? NAME_FIELDS[method] : undefined;
  const value = field === undefined ? undefined : params?.[field];
  return typeof value === 'string' ? { 'Mcp-Name': headerValue(value) } : {};
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Serves a server written for the MCP TypeScript SDK's server package
 * (`@modelcontextprotocol/server`, the 2026-07-28 stateless revision MCP over ACP carries) to
 * agents over ACP. `factory` makes a fresh `McpServer` (or low-level `Server`) per request, as that
 * package asks: define tools, resources and prompts inside it.
 *
 * Each `mcp/message` request runs through the package's own serving pipeline (its
 * `createMcpHandler`, on an in-process request that never touches the network), so discovery,
 * capability checks, progress notifications and `subscriptions/listen` behave as over its HTTP
 * transport. What the server streams for a request (progress, logging, a subscription's
 * acknowledgement and change notifications) reaches the agent as `mcp/message` notifications of
 * that request; cancelling the request (or withdrawing the server) ends it. Subscriptions are
 * bounded by `maxSubscriptions` (default 1024) and, like every request, by the registration's
 * `maxActiveRequests`.
 *
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/server';
 * import { adaptMcpServer } from '@acp-kit/sdk/mcp-server';
 *
 * const tools = adaptMcpServer(() => {
 *   const server = new McpServer({ name: 'project-tools', version: '1.0.0' });
 *   server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
 *     content: [{ type: 'text', text }],
 *   }));
 *   return server;
 * });
 * const registration = client.mcp.register({ name: 'project-tools', handler: tools.handler });
 * tools.notify.toolsChanged(); // to every open subscription that asked for it
 * ```
 *
 * The 1.x SDK's servers are served by `AcpMcpServerTransport` (the main entry) instead.
 */
export function adaptMcpServer(
  factory: McpServerFactory,
  options: AdaptMcpServerOptions = {},
): AdaptedMcpServer {
  const maxMessageBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const mcp = createMcpHandler(factory, {
    legacy: 'reject',
    responseMode: 'auto',
    keepAliveMs: 0,
    ...(options.bus === undefined ? {} : { bus: options.bus }),
    ...(options.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions }),
    ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
  });

  const handler: McpServerHandler = async (request) => {
    const body = {
      jsonrpc: '2.0' as const,
      id: request.requestId,
      method: request.method,
      ...(request.params === undefined ? {} : { params: request.params }),
    };
    const meta = isObject(request.params?._meta) ? request.params._meta : {};
    const version = meta[MCP_META.protocolVersion];
    const response = await mcp.fetch(
      new Request(IN_PROCESS_URL, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Method': request.method,
          ...nameHeader(request.method, request.params),
          ...(typeof version === 'string' ? { 'MCP-Protocol-Version': version } : {}),
        },
        body: JSON.stringify(body),
        signal: request.signal,
      }),
      { parsedBody: body },
    );
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream') && response.body !== null)
      return streamed(response.body, request, maxMessageBytes);
    const text = await response.text();
    if (text.length > maxMessageBytes)
      throw new Error(`the MCP server answered more than ${maxMessageBytes} bytes`);
    return outcomeOf(parse(text), response.status);
  };

  return { handler, notify: mcp.notify, bus: mcp.bus, close: () => mcp.close() };
}

function parse(text: string): Message {
  const value: unknown = JSON.parse(text);
  if (!isObject(value)) throw new Error('the MCP server answered something other than a JSON-RPC message');
  return value;
}

/** The outcome a JSON-RPC response carries; throws (→ -33002) for anything else. */
function outcomeOf(message: Message, status: number): McpOutcome {
  if (Object.hasOwn(message, 'result')) return { result: message.result };
  if (isMcpError(message.error)) return { error: message.error };
  throw new Error(`the MCP server answered HTTP ${status} without a JSON-RPC result or error`);
}

/**
 * Reads an SSE answer: notifications go to the agent as they come, the response to the request
 * ends it. A stream that ends without one fails the request.
 */
async function streamed(
  body: ReadableStream<Uint8Array>,
  request: McpServerRequest,
  maxMessageBytes: number,
): Promise<McpOutcome> {
  for await (const data of readSseData(body, maxMessageBytes)) {
    const message = parse(data);
    if (typeof message.method === 'string') {
      // A request of the server's own (the stateless revision has none on this path) is not relayed.
      if (message.id === undefined)
        await request.notify(message.method, isObject(message.params) ? message.params : undefined);
      continue;
    }
    if (message.id === request.requestId) return outcomeOf(message, 200);
  }
  throw new Error('the MCP server ended its stream without answering the request');
}
