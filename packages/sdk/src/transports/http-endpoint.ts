import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { decodeStrict, type Transport } from '../rpc/index.js';
import type { GuardRefusal, HandshakeGuard } from './handshake-guard.js';
import { HttpConnection, type RoutedMessage } from './http-connection.js';
import { negotiatedVersion, PROTOCOL_VERSION_HEADER } from './protocol-version-header.js';
import { limitSessions } from './session-limit.js';
import { ResponseSink } from './response-sink.js';

/** A request of either HTTP version (`http.IncomingMessage`, `http2.Http2ServerRequest`), as the endpoint reads it. */
export interface HttpRequest extends Readable {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly httpVersionMajor: number;
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly remoteAddress?: string | undefined } | null;
}

/** A response of either HTTP version, as the endpoint writes it. */
export interface HttpResponse {
  readonly headersSent: boolean;
  readonly writableLength: number;
  readonly destroyed: boolean;
  writeHead(status: number, headers?: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  once(event: 'close', listener: () => void): unknown;
  off?(event: 'close', listener: () => void): unknown;
}

/** Header names of the Streamable HTTP profile. */
export const CONNECTION_ID_HEADER = 'Acp-Connection-Id';
/** See {@link CONNECTION_ID_HEADER}. */
export const SESSION_ID_HEADER = 'Acp-Session-Id';

/** Options of the Streamable HTTP profile of an `/acp` endpoint; every field has a default. */
export interface HttpEndpointOptions {
  /**
   * Bytes one SSE stream may hold that its reader has not taken (waiting for a GET, or written
   * but unread). Default 4 MiB. Past it the connection is cut off; its sessions live on.
   */
  maxStreamBufferBytes?: number;
  /** A connection with no stream open and no request for this long is reclaimed. Default 60 000 ms. */
  idleTimeoutMs?: number;
  /** Interval of keepalive comments on open streams. Default 15 000 ms. */
  keepAliveMs?: number;
  /**
   * The affinity cookie set on the `initialize` answer, for a load balancer to route a connection's
   * later requests to this process: `acp_affinity=<value>`. Default value: random per server;
   * `false` sets none.
   */
  affinityCookie?: { name?: string; value?: string } | false;
  /**
   * Whether a session exists, asked when a GET opens the stream of a session this connection has not
   * named yet (a client about to resume it). `false` answers 404. Without it such a GET is accepted.
   */
  sessionExists?(sessionId: string): boolean | Promise<boolean>;
}

/** What an endpoint needs from the server it runs in. */
export interface HttpEndpointContext {
  guard: HandshakeGuard;
  maxMessageBytes: number;
  secure: boolean;
  /** Called with each new connection's transport (already limited in sessions). */
  onConnection(transport: Transport, request: HttpRequest, connectionId: string): void;
  /** The remote address a request came from (rate limits and caps are per address). */
  addressOf(request: HttpRequest): string;
  /** Called for each request refused by the guard. */
  onRefused(request: HttpRequest, refusal: GuardRefusal): void;
  /** Called for each request that passed the guard (its socket has presented the token). */
  onAdmitted?(request: HttpRequest): void;
}

/** Why a POST to a connection whose reader is paused is answered 503. */
const PAUSED_REASON = 'the agent is not taking input on this connection yet: retry later';

/** The longest `Acp-Connection-Id` / `Acp-Session-Id` header value looked at. */
const MAX_ID_LENGTH = 1024;

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Why a request's `Acp-Protocol-Version` does not fit its connection, or undefined when it fits or
 * is absent (the header is a SHOULD: clients that never send it, such as the official SDK's, are
 * served).
 */
const versionMismatch = (headers: IncomingHttpHeaders, connection: HttpConnection): string | undefined => {
  const sent = header(headers, PROTOCOL_VERSION_HEADER);
  if (sent === undefined || connection.protocolVersion === undefined) return undefined;
  if (sent.trim() === connection.protocolVersion) return undefined;
  return `${PROTOCOL_VERSION_HEADER} ${JSON.stringify(sent)} does not match the protocol version this connection negotiated at initialize (${connection.protocolVersion})`;
};

const rpcError = (code: number, message: string, data?: unknown): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });

/**
 * The Streamable HTTP half of an `/acp` endpoint (the WebSocket half is the server's upgrade
 * handler): POST carries client→server messages, GET opens SSE streams, DELETE ends a connection.
 * Each connection is an ordinary agent-side transport handed to `onConnection`.
 */
export class HttpEndpoint {
  readonly #connections = new Map<string, HttpConnection>();
  readonly #context: HttpEndpointContext;
  readonly #streamLimit: number;
  readonly #idleTimeoutMs: number;
  readonly #keepAliveMs: number;
  /** One timer for the keepalives of every open connection (none while there is none). */
  #keepAliveTimer: ReturnType<typeof setInterval> | undefined;
  readonly #cookie: string | undefined;
  readonly #sessionExists: HttpEndpointOptions['sessionExists'];

  constructor(context: HttpEndpointContext, options: HttpEndpointOptions = {}) {
    this.#context = context;
    this.#streamLimit = options.maxStreamBufferBytes ?? 4 * 1024 * 1024;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    this.#keepAliveMs = options.keepAliveMs ?? 15_000;
    this.#sessionExists = options.sessionExists;
    if (options.affinityCookie !== false) {
      const name = options.affinityCookie?.name ?? 'acp_affinity';
      const value = options.affinityCookie?.value ?? randomBytes(12).toString('base64url');
      this.#cookie = `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${context.secure ? '; Secure' : ''}`;
    }
  }

  /** The affinity cookie (a `Set-Cookie` value) new connections get, if any; the 101 of an upgrade carries it too. */
  get affinityCookie(): string | undefined {
    return this.#cookie;
  }

  /** Streamable HTTP connections open right now. */
  get openConnections(): number {
    return this.#connections.size;
  }

  /** Ends every connection (server shutdown). */
  closeAll(): void {
    for (const connection of [...this.#connections.values()]) connection.end(new Error('server closing'));
  }

  /** Handles one request to the endpoint's path. */
  async handle(request: HttpRequest, response: HttpResponse): Promise<void> {
    const cors = this.#cors(request);
    const reply = (status: number, body = '', headers: Record<string, string> = {}): void => {
      if (response.headersSent) return;
      const type = body.startsWith('{') ? 'application/json' : 'text/plain; charset=utf-8';
      const all: Record<string, string> = { ...cors, ...(body ? { 'Content-Type': type } : {}), ...headers };
      // HTTP/2 has no connection-specific headers (RFC 9113 §8.2.2).
      if (request.httpVersionMajor === 2) delete all.Connection;
      response.writeHead(status, all);
      if (body) response.end(type === 'application/json' ? body : `${body}\n`);
      else response.end();
    };
    if (request.method === 'OPTIONS') return this.#preflight(request, reply);
    const method = request.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      reply(405, `method ${method} is not part of ACP over Streamable HTTP`, {
        Allow: 'GET, POST, DELETE',
      });
      return;
    }
    const address = this.#context.addressOf(request);
    const connectionId = header(request.headers, CONNECTION_ID_HEADER);
    const sessionId = header(request.headers, SESSION_ID_HEADER);
    const opening = method === 'POST' && connectionId === undefined;
    const refusal = this.#context.guard.check(request, address, { rate: opening, capacity: opening });
    if (refusal) {
      this.#context.onRefused(request, refusal);
      return reply(refusal.status, refusal.reason, refusal.headers);
    }
    this.#context.onAdmitted?.(request);
    if ((connectionId?.length ?? 0) > MAX_ID_LENGTH || (sessionId?.length ?? 0) > MAX_ID_LENGTH) {
      return reply(
        400,
        `${CONNECTION_ID_HEADER} and ${SESSION_ID_HEADER} are at most ${MAX_ID_LENGTH} characters`,
      );
    }
    if (method === 'POST') return this.#post(request, response, connectionId, sessionId, address, reply);
    if (connectionId === undefined) return reply(400, `Missing ${CONNECTION_ID_HEADER}`);
    const connection = this.#connections.get(connectionId);
    if (!connection) return reply(404, `Unknown ${CONNECTION_ID_HEADER}`);
    const mismatch = versionMismatch(request.headers, connection);
    if (mismatch !== undefined) return reply(400, mismatch);
    if (method === 'DELETE') {
      connection.end();
      return reply(202);
    }
    return this.#get(request, response, connection, sessionId, reply, cors);
  }

  #cors(request: HttpRequest): Record<string, string> {
    const origin = header(request.headers, 'origin');
    if (origin === undefined || !this.#context.guard.allowsOrigin(origin)) return {};
    return {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Expose-Headers': CONNECTION_ID_HEADER,
      Vary: 'Origin',
    };
  }

  #preflight(
    request: HttpRequest,
    reply: (status: number, body?: string, headers?: Record<string, string>) => void,
  ): void {
    const origin = header(request.headers, 'origin');
    if (origin === undefined || !this.#context.guard.allowsOrigin(origin)) {
      // A refused preflight is the only request a browser sends for a page of another origin: log it.
      const refusal = {
        status: 403,
        reason: 'origin not allowed: this endpoint accepts web pages only from its configured origins',
      };
      this.#context.onRefused(request, refusal);
      reply(refusal.status, refusal.reason);
    } else {
      reply(204, '', {
        'Access-Control-Allow-Methods': 'GET, POST, DELETE',
        'Access-Control-Allow-Headers': `Authorization, Content-Type, Accept, ${CONNECTION_ID_HEADER}, ${SESSION_ID_HEADER}, ${PROTOCOL_VERSION_HEADER}`,
        'Access-Control-Max-Age': '600',
      });
    }
  }

  async #post(
    request: HttpRequest,
    response: HttpResponse,
    connectionId: string | undefined,
    sessionId: string | undefined,
    address: string,
    reply: (status: number, body?: string, headers?: Record<string, string>) => void,
  ): Promise<void> {
    const type = header(request.headers, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      return reply(415, `POST bodies must be Content-Type: application/json (got ${type ?? 'none'})`);
    }
    const connection = connectionId === undefined ? undefined : this.#connections.get(connectionId);
    if (connectionId !== undefined && !connection) return reply(404, `Unknown ${CONNECTION_ID_HEADER}`);
    const mismatch = connection && versionMismatch(request.headers, connection);
    if (mismatch !== undefined) return reply(400, mismatch);
    // Refused before its body is read: a connection whose reader cannot take more holds nothing more.
    if (connection?.paused) return reply(503, PAUSED_REASON, { 'Retry-After': '1' });
    const body = await this.#readBody(request);
    if (body === 'too-large') {
      return reply(
        413,
        rpcError(-32600, `message larger than ${this.#context.maxMessageBytes} bytes`, {
          pointer: '',
          expected: `a JSON-RPC message of at most ${this.#context.maxMessageBytes} bytes`,
        }),
        { Connection: 'close' },
      );
    }
    if (body === 'aborted') return;
    const decoded = decodeStrict(body);
    if (!decoded.ok) return reply(400, rpcError(-32700, 'Parse error: message is not valid UTF-8'));
    let value: unknown;
    try {
      value = JSON.parse(decoded.text);
    } catch (error) {
      return reply(
        400,
        rpcError(-32700, `Parse error: ${error instanceof Error ? error.message : 'not JSON'}`, {
          pointer: '',
          expected: 'a JSON-RPC message (one JSON object)',
        }),
      );
    }
    if (Array.isArray(value)) {
      return reply(
        501,
        rpcError(
          -32600,
          'JSON-RPC batches are not supported over Streamable HTTP: send one message per POST',
          {
            pointer: '',
            expected: 'a single JSON-RPC message (an object), not an array',
          },
        ),
      );
    }
    if (value === null || typeof value !== 'object') {
      return reply(
        400,
        rpcError(-32600, 'Invalid Request: a JSON-RPC message is an object', {
          pointer: '',
          expected: 'object',
        }),
      );
    }
    const message = value as RoutedMessage;
    if (connection) {
      if (connection.ended) return reply(404, `Unknown ${CONNECTION_ID_HEADER}`);
      // A request naming a session this connection has not used yet (a resume) must name one the
      // agent has: the RFD's 404 otherwise, before the connection remembers anything of it.
      const isRequest = typeof message.id === 'string' || typeof message.id === 'number';
      if (
        sessionId !== undefined &&
        isRequest &&
        message.method !== undefined &&
        !connection.knows(sessionId) &&
        this.#sessionExists
      ) {
        if (!(await this.#exists(sessionId))) return reply(404, `Unknown ${SESSION_ID_HEADER}: ${sessionId}`);
        if (connection.ended) return reply(404, `Unknown ${CONNECTION_ID_HEADER}`);
      }
      const outcome = connection.post(message, decoded.text, sessionId);
      if (outcome.status === 202) return reply(202);
      return reply(
        outcome.status,
        outcome.reason,
        outcome.status === 503 ? { 'Retry-After': String(outcome.retryAfter) } : {},
      );
    }
    if (message.method !== 'initialize') {
      return reply(400, `Missing ${CONNECTION_ID_HEADER}: only initialize opens a connection`);
    }
    if (typeof message.id !== 'string' && typeof message.id !== 'number') {
      return reply(
        400,
        rpcError(-32600, 'Invalid Request: initialize needs an id (a string or a number)', {
          pointer: '/id',
          expected: 'string or number',
        }),
      );
    }
    return this.#open(request, response, message.id, decoded.text, address, reply);
  }

  async #open(
    request: HttpRequest,
    response: HttpResponse,
    id: string | number,
    text: string,
    address: string,
    reply: (status: number, body?: string, headers?: Record<string, string>) => void,
  ): Promise<void> {
    const connection = this.#track(address);
    const connectionId = connection.id;
    // The response's 'close' (not the request's: that fires once its body was read) says the
    // client went away; before the answer is sent that means it abandoned the handshake.
    const gone = (): void => {
      if (!response.headersSent) connection.end(new Error('client went away before initialize was answered'));
    };
    response.once('close', gone);
    try {
      this.#context.onConnection(
        limitSessions(connection.transport, this.#context.guard.limits.maxSessionsPerConnection),
        request,
        connectionId,
      );
    } catch {
      connection.end(new Error('server error'));
      return reply(500, rpcError(-32603, 'Internal error: the server could not accept the connection'));
    }
    let answer: string;
    try {
      answer = await connection.initialize(text, id);
    } catch (error) {
      return reply(
        503,
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: {
            code: -32603,
            message: `initialize was not answered: ${error instanceof Error ? error.message : String(error)}`,
          },
        }),
      );
    } finally {
      response.off?.('close', gone);
    }
    connection.protocolVersion = negotiatedVersion(answer);
    reply(200, answer, {
      [CONNECTION_ID_HEADER]: connectionId,
      ...(this.#cookie ? { 'Set-Cookie': this.#cookie } : {}),
      'Cache-Control': 'no-store',
    });
  }

  /**
   * Opens a connection for `address` and keeps it until it ends. Its own function: the callback
   * that forgets it lives as long as the connection, and a closure keeps every variable of the
   * scope it was made in that any closure there uses. Made beside the initialize exchange, it
   * kept that exchange's request and response (kilobytes each) for the connection's whole life.
   */
  #track(address: string): HttpConnection {
    const release = this.#context.guard.limiter.acquire(address);
    const connectionId = randomBytes(32).toString('base64url');
    const connection = new HttpConnection({
      id: connectionId,
      streamLimitBytes: this.#streamLimit,
      maxStreams: this.#context.guard.limits.maxSessionsPerConnection + 1,
      idleTimeoutMs: this.#idleTimeoutMs,
      onEnd: () => {
        this.#connections.delete(connectionId);
        if (this.#connections.size === 0 && this.#keepAliveTimer !== undefined) {
          clearInterval(this.#keepAliveTimer);
          this.#keepAliveTimer = undefined;
        }
        release();
      },
    });
    this.#connections.set(connectionId, connection);
    if (this.#keepAliveTimer === undefined) {
      this.#keepAliveTimer = setInterval(() => {
        for (const open of this.#connections.values()) open.keepAlive();
      }, this.#keepAliveMs);
      this.#keepAliveTimer.unref?.();
    }
    return connection;
  }

  async #get(
    request: HttpRequest,
    response: HttpResponse,
    connection: HttpConnection,
    sessionId: string | undefined,
    reply: (status: number, body?: string, headers?: Record<string, string>) => void,
    cors: Record<string, string>,
  ): Promise<void> {
    const accept = header(request.headers, 'accept')?.toLowerCase() ?? '';
    if (!accept.includes('text/event-stream')) {
      return reply(406, 'GET opens an SSE stream: send Accept: text/event-stream (or Upgrade: websocket)');
    }
    if (sessionId !== undefined && !connection.knows(sessionId) && this.#sessionExists) {
      if (!(await this.#exists(sessionId)))
        return reply(404, `Unknown ${SESSION_ID_HEADER} for this connection`);
      if (connection.ended) return reply(404, `Unknown ${CONNECTION_ID_HEADER}`);
    }
    const sink = new ResponseSink(response);
    const outcome = connection.openStream(sessionId, sink, () => {
      response.writeHead(200, {
        ...cors,
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
      });
      // A first comment sends the headers now, so the client knows the stream is open; what
      // waited for the stream follows it.
      response.write(':\n\n');
      sink.headSent();
    });
    if (outcome === 'busy') return reply(409, 'this stream is already open on another GET');
    if (outcome === 'too-many') return reply(429, 'too many streams open on this connection');
    response.once('close', () => connection.closeStream(sessionId, sink));
  }

  /** Whether the agent has `sessionId` (false when the lookup fails). */
  async #exists(sessionId: string): Promise<boolean> {
    try {
      return (await this.#sessionExists?.(sessionId)) === true;
    } catch {
      return false;
    }
  }

  /** The body's bytes, `too-large` past the limit (stops reading), `aborted` if the client left. */
  #readBody(request: HttpRequest): Promise<Uint8Array | 'too-large' | 'aborted'> {
    const limit = this.#context.maxMessageBytes;
    const declared = Number(header(request.headers, 'content-length'));
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
      request.once('end', () => resolve(Buffer.concat(chunks)));
      request.once('aborted', () => resolve('aborted'));
      request.once('error', () => resolve('aborted'));
    });
  }
}
