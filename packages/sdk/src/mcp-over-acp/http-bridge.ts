import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { McpServerAcp, McpServerHttp } from '@acp-kit/schema';
import type { ClientPeer } from '../agent/connection/client-peer.js';
import { RpcError } from '../rpc/errors.js';
import { tokensMatch } from '../transports/websocket-token.js';
import { McpBindingErrors } from './binding.js';
import type { McpOverAcpCaller } from './caller.js';

/** Options of a {@link McpHttpBridge}; every field has a default. */
export interface McpHttpBridgeOptions {
  /**
   * MCP requests one ACP client connection may have in flight through the bridge, over all its
   * servers. Default 64. Past it a POST is answered HTTP 429 with JSON-RPC error -33000.
   */
  maxActiveRequests?: number;
  /** The largest POST body, in bytes. Default 1 MiB. Past it: HTTP 413 with JSON-RPC error -33000. */
  maxRequestBodyBytes?: number;
  /**
   * Bytes of a streamed answer (notifications, then the result) its HTTP reader may leave unread.
   * Default 1 MiB. Past it the request is cancelled and its response ended.
   */
  maxBufferedResponseBytes?: number;
  /** Servers the bridge serves at once (routes of connections still open). Default 1024. */
  maxServers?: number;
  /**
   * The capabilities the bridge's `initialize` answer gives an MCP client (the binding is stateless:
   * the server behind it is asked nothing until a real request). Default tools, resources and prompts.
   */
  serverCapabilities?: Record<string, unknown>;
}

/** One served server: where its requests go, and the token its URL takes. */
interface Route {
  readonly id: string;
  readonly token: string;
  readonly client: ClientPeer;
  readonly serverId: string;
  readonly name: string;
  /** The requests in flight, by the HTTP client's ids (for `notifications/cancelled`). */
  readonly inflight: Map<string | number, AbortController>;
}

/** A JSON-RPC message as an MCP client posts it. */
interface Posted {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** The MCP revisions whose `initialize` the bridge answers with the version asked for. */
const KNOWN_REVISIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
const DEFAULT_REVISION = '2025-06-18';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/**
 * Serves MCP servers that ACP clients provide (`type: "acp"`, MCP over ACP) as MCP Streamable
 * HTTP endpoints on `127.0.0.1`, for an agent whose MCP client takes only URLs (most agents hand
 * their MCP servers to a CLI or a library that connects by URL). {@link toHttp} turns a declaration
 * into a `type: "http"` one whose URL and `Authorization` header reach that server, on that
 * client's connection, through the given caller.
 *
 * Each POST is one MCP request, forwarded as one `mcp/message` request; its notifications
 * (progress, logging…) stream back as SSE events before its result when the reader accepts SSE.
 * A reader that goes away cancels its request. The bridge answers `initialize` and `ping` itself
 * (the binding is stateless), takes notifications with 202 (`notifications/cancelled` cancels the
 * request it names), and opens no GET stream (405). Every bound is enforced before the server is
 * asked anything: a token per server (401), `Host` and `Origin` checked against DNS rebinding
 * (403), the request body ({@link McpHttpBridgeOptions.maxRequestBodyBytes}, 413) and the requests
 * in flight per client connection ({@link McpHttpBridgeOptions.maxActiveRequests}, 429), both
 * answered with JSON-RPC error -33000.
 *
 * ```ts
 * const bridge = new McpHttpBridge(agent.mcp!);
 * // in a session's setup, for the backend that only takes URLs:
 * const servers = await bridge.adaptServers(client, params.mcpServers);
 * ```
 */
export class McpHttpBridge {
  readonly #caller: McpOverAcpCaller;
  readonly #maxActive: number;
  readonly #maxBody: number;
  readonly #maxBuffered: number;
  readonly #maxServers: number;
  readonly #capabilities: Record<string, unknown>;
  readonly #routes = new Map<string, Route>();
  readonly #byClient = new WeakMap<ClientPeer, Map<string, Route>>();
  readonly #active = new WeakMap<ClientPeer, number>();
  #listening: Promise<{ server: Server; port: number }> | undefined;
  #closed = false;

  constructor(caller: McpOverAcpCaller, options: McpHttpBridgeOptions = {}) {
    this.#caller = caller;
    this.#maxActive = options.maxActiveRequests ?? 64;
    this.#maxBody = options.maxRequestBodyBytes ?? 1024 * 1024;
    this.#maxBuffered = options.maxBufferedResponseBytes ?? 1024 * 1024;
    this.#maxServers = options.maxServers ?? 1024;
    this.#capabilities = options.serverCapabilities ?? { tools: {}, resources: {}, prompts: {} };
  }

  /** Servers served right now. */
  get servedServers(): number {
    return this.#routes.size;
  }

  /**
   * The `type: "http"` declaration that serves `server` (declared by `client`) through the bridge:
   * same name, a URL on `127.0.0.1`, and the route's token in an `Authorization` header (never in
   * the URL). The same client and server always get the same route. Throws when the bridge is
   * closed or serves {@link McpHttpBridgeOptions.maxServers} already.
   */
  async toHttp(client: ClientPeer, server: McpServerAcp): Promise<McpServerHttp> {
    if (this.#closed) throw new Error('the MCP HTTP bridge is closed');
    const { port } = await this.#listen();
    let routes = this.#byClient.get(client);
    let route = routes?.get(server.serverId);
    if (route === undefined) {
      this.#sweep();
      if (this.#routes.size >= this.#maxServers) {
        throw new Error(`the MCP HTTP bridge serves ${this.#maxServers} servers already (maxServers)`);
      }
      route = {
        id: randomBytes(16).toString('base64url'),
        token: randomBytes(32).toString('base64url'),
        client,
        serverId: server.serverId,
        name: server.name,
        inflight: new Map(),
      };
      if (routes === undefined) {
        routes = new Map();
        this.#byClient.set(client, routes);
      }
      routes.set(server.serverId, route);
      this.#routes.set(route.id, route);
    }
    return {
      type: 'http',
      name: server.name,
      url: `http://127.0.0.1:${port}/mcp/${route.id}`,
      headers: [{ name: 'Authorization', value: `Bearer ${route.token}` }],
      ...(server._meta == null ? {} : { _meta: server._meta }),
    };
  }

  /** A session's `mcpServers` with every `type: "acp"` entry replaced by {@link toHttp}'s declaration. */
  async adaptServers<T extends { type?: string }>(
    client: ClientPeer,
    servers: readonly T[] | null | undefined,
  ): Promise<(T | McpServerHttp)[]> {
    const adapted: (T | McpServerHttp)[] = [];
    for (const server of servers ?? []) {
      adapted.push(
        server.type === 'acp' ? await this.toHttp(client, server as unknown as McpServerAcp) : server,
      );
    }
    return adapted;
  }

  /** Stops serving and closes the listener; requests in flight are cut off. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#routes.clear();
    const listening = this.#listening;
    if (listening === undefined) return;
    const { server } = await listening;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Drops the routes of connections that closed. */
  #sweep(): void {
    for (const [id, route] of this.#routes) {
      if (!route.client.open) {
        this.#routes.delete(id);
        this.#byClient.get(route.client)?.delete(route.serverId);
      }
    }
  }

  #listen(): Promise<{ server: Server; port: number }> {
    this.#listening ??= new Promise((resolve, reject) => {
      const server = createServer({ headersTimeout: 10_000, requestTimeout: 0 }, (request, response) => {
        this.#handle(request, response, port).catch(() => {
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
      });
      let port = 0;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        port = (server.address() as { port: number }).port;
        server.unref();
        resolve({ server, port });
      });
    });
    return this.#listening;
  }

  async #handle(request: IncomingMessage, response: ServerResponse, port: number): Promise<void> {
    const host = request.headers.host;
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return reply(response, 403, null, -32600, `Host ${JSON.stringify(host ?? '')} is not this bridge's`);
    }
    const origin = request.headers.origin;
    if (
      origin !== undefined &&
      origin !== `http://127.0.0.1:${port}` &&
      origin !== `http://localhost:${port}`
    ) {
      return reply(response, 403, null, -32600, 'web pages of other origins may not use this bridge');
    }
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const route = path.startsWith('/mcp/') ? this.#routes.get(path.slice(5)) : undefined;
    const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (route === undefined || !route.client.open) {
      return reply(
        response,
        404,
        null,
        McpBindingErrors.ServerUnavailable,
        'no MCP server is served at this path',
      );
    }
    if (!tokensMatch(presented, route.token)) {
      return reply(response, 401, null, -32600, 'missing or wrong bearer token', {
        'WWW-Authenticate': 'Bearer',
      });
    }
    if (request.method !== 'POST') {
      return reply(response, 405, null, -32600, `${request.method} is not served: POST one MCP message`, {
        Allow: 'POST',
      });
    }
    const type = request.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      return reply(
        response,
        415,
        null,
        -32600,
        `POST bodies are Content-Type: application/json (got ${type ?? 'none'})`,
      );
    }
    const active = this.#active.get(route.client) ?? 0;
    if (active >= this.#maxActive) {
      return reply(
        response,
        429,
        null,
        McpBindingErrors.ResourceLimitExceeded,
        `too many MCP requests in flight on this connection (at most ${this.#maxActive})`,
        { 'Retry-After': '1' },
      );
    }
    this.#active.set(route.client, active + 1);
    try {
      await this.#post(request, response, route);
    } finally {
      this.#active.set(route.client, (this.#active.get(route.client) ?? 1) - 1);
    }
  }

  async #post(request: IncomingMessage, response: ServerResponse, route: Route): Promise<void> {
    const body = await readBody(request, this.#maxBody);
    if (body === 'too-large') {
      return reply(
        response,
        413,
        null,
        McpBindingErrors.ResourceLimitExceeded,
        `request body larger than ${this.#maxBody} bytes`,
        { Connection: 'close' },
      );
    }
    if (body === 'aborted') return;
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return reply(response, 400, null, -32700, 'Parse error: the body is not JSON');
    }
    if (Array.isArray(message)) {
      return reply(response, 400, null, -32600, 'JSON-RPC batches are not served: POST one message');
    }
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      return reply(
        response,
        400,
        null,
        -32600,
        'Invalid Request: a JSON-RPC 2.0 message is an object with jsonrpc "2.0"',
      );
    }
    const posted = message as Posted;
    if (typeof posted.method !== 'string') {
      // An answer to a request of the server's: the bridge sends none.
      response.writeHead(202).end();
      return;
    }
    if (posted.id === undefined) {
      if (posted.method === 'notifications/cancelled' && isObject(posted.params)) {
        const named = posted.params.requestId;
        if (isId(named)) route.inflight.get(named)?.abort(new Error('cancelled by the MCP client'));
      }
      response.writeHead(202).end();
      return;
    }
    if (!isId(posted.id))
      return reply(response, 400, null, -32600, 'Invalid Request: id is a string or a number');
    if (posted.params !== undefined && !isObject(posted.params)) {
      return reply(response, 400, posted.id, -32602, 'Invalid params: params is an object');
    }
    const id = posted.id;
    const params = posted.params as Record<string, unknown> | undefined;
    if (posted.method === 'initialize') {
      const asked = params?.protocolVersion;
      return answer(response, id, {
        protocolVersion: typeof asked === 'string' && KNOWN_REVISIONS.has(asked) ? asked : DEFAULT_REVISION,
        capabilities: this.#capabilities,
        serverInfo: { name: route.name, version: '0.0.0' },
      });
    }
    if (posted.method === 'ping') return answer(response, id, {});
    await this.#forward(request, response, route, id, posted.method, params);
  }

  async #forward(
    request: IncomingMessage,
    response: ServerResponse,
    route: Route,
    id: string | number,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    const streams = (request.headers.accept ?? '').includes('text/event-stream');
    const controller = new AbortController();
    route.inflight.set(id, controller);
    const gone = (): void => {
      if (!response.writableEnded) controller.abort(new Error('the HTTP reader went away'));
    };
    response.once('close', gone);
    const event = (payload: unknown): void => {
      if (!response.headersSent) {
        response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      }
      response.write(`data: ${JSON.stringify(payload)}\n\n`);
      if (response.writableLength > this.#maxBuffered) {
        controller.abort(new Error('the HTTP reader does not take the answer'));
        response.destroy();
      }
    };
    try {
      const outcome = await this.#caller.request(route.client, route.serverId, method, params, {
        signal: controller.signal,
        onNotification: (notice) => {
          if (!streams || controller.signal.aborted) return;
          event({
            jsonrpc: '2.0',
            method: notice.method,
            ...(notice.params ? { params: notice.params } : {}),
          });
        },
      });
      const message = { jsonrpc: '2.0', id, ...outcome };
      if (response.headersSent) {
        event(message);
        response.end();
      } else {
        answer(response, id, undefined, message);
      }
    } catch (error) {
      if (controller.signal.aborted) {
        // Cancelled by the MCP client or its reader left: nothing is owed; a reader still there is cut off.
        if (!response.writableEnded) response.destroy();
        return;
      }
      const code = error instanceof RpcError ? error.code : McpBindingErrors.BackendFailed;
      const text = error instanceof Error ? error.message : String(error);
      const failure = { jsonrpc: '2.0', id, error: { code, message: text } };
      if (response.headersSent) {
        event(failure);
        response.end();
      } else {
        answer(response, id, undefined, failure);
      }
    } finally {
      response.off('close', gone);
      if (route.inflight.get(id) === controller) route.inflight.delete(id);
    }
  }
}

/** Answers one request with a JSON body: `result`, or the whole `message` when given. */
function answer(response: ServerResponse, id: string | number, result: unknown, message?: unknown): void {
  const body = JSON.stringify(message ?? { jsonrpc: '2.0', id, result });
  response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/** Answers with a JSON-RPC error and an HTTP status. */
function reply(
  response: ServerResponse,
  status: number,
  id: string | number | null,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

/** The body as text, `too-large` past `limit` (reading stops), `aborted` if the client left. */
function readBody(request: IncomingMessage, limit: number): Promise<string | 'too-large' | 'aborted'> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.pause();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('aborted', () => resolve('aborted'));
    request.once('error', () => resolve('aborted'));
  });
}
