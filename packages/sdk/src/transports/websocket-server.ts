import { listenOn } from './listen-on.js';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { DEFAULT_MAX_MESSAGE_BYTES, type Transport } from '../rpc/index.js';
import type { ConnectionLimits } from './connection-limits.js';
import { HandshakeGuard, refuseSocket } from './handshake-guard.js';
import { limitSessions } from './session-limit.js';
import { type WebSocketTransportOptions, webSocketTransport } from './websocket.js';
import { ACP_KIT_PROTOCOL } from './websocket-token.js';

/** A certificate and private key (PEM) to serve `wss://` directly. */
export interface WebSocketTlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
}

/** A handshake the server refused, as reported to {@link WebSocketServerOptions.onRefused}. */
export interface HandshakeRefusal {
  /** Remote address of the peer. */
  address: string;
  /** HTTP status sent: 401 token, 403 origin, 404 path, 429 rate or per-address cap, 503 total cap. */
  status: number;
  /** The reason sent to the peer (never contains the token). */
  reason: string;
  /** The `Origin` header, when there was one. */
  origin?: string;
}

/** Options for {@link listenWebSocket}. Every default is the safe choice. */
export interface WebSocketServerOptions extends WebSocketTransportOptions {
  /** Interface to bind. Default `127.0.0.1` (never all interfaces by accident). */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Only accept upgrades on this path, e.g. `/acp`. */
  path?: string;
  /**
   * The connection token clients must present (`Authorization: Bearer <token>`, or the
   * `acp-kit.token.<token>` subprotocol from a browser). Default: a fresh random one, readable as
   * {@link WebSocketTransportServer.token}. Base64url characters, 16 to 512 of them.
   */
  token?: string;
  /**
   * Accept clients without a token. Only for tests and trusted setups; refused (the promise
   * rejects) unless `host` is a loopback address, and refused together with `token`.
   */
  noAuth?: boolean;
  /**
   * Exact origins (`https://app.example`, `http://localhost:3000`) whose web pages may connect.
   * A handshake with any other `Origin` header gets HTTP 403; one without `Origin` (not a browser)
   * is unaffected. Default: none, so no web page can connect.
   */
  allowedOrigins?: readonly string[];
  /** Serve `wss://` with this certificate and key. */
  tls?: WebSocketTlsOptions;
  /** Connection, handshake-rate and session limits; see {@link ConnectionLimits} for defaults. */
  limits?: ConnectionLimits;
  /** Called with one transport per accepted client; wrap each in its own Connection. */
  onConnection(transport: Transport, request: IncomingMessage): void;
  /** Called for every refused handshake, e.g. to log it. */
  onRefused?(refusal: HandshakeRefusal): void;
}

/** A listening WebSocket server that turns each client into a transport. */
export interface WebSocketTransportServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** `ws://host:port/path` (or `wss://` with TLS) for clients to connect to. */
  readonly url: string;
  /** The token clients must present; `undefined` only with `noAuth`. Keep it out of logs. */
  readonly token: string | undefined;
  /** Connections open right now. */
  readonly openConnections: number;
  /** Closes every client socket and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a WebSocket server for several clients on one agent: every accepted socket becomes its
 * own transport, one JSON-RPC message per text frame.
 *
 * Safe by default: each handshake is checked before any WebSocket frame is read — handshake rate
 * per address (429), `Origin` against {@link WebSocketServerOptions.allowedOrigins} (403), the
 * connection token in constant time (401), then open-connection caps (429 per address, 503 in
 * total). Accepted connections are limited in sessions and in message size.
 */
export async function listenWebSocket(options: WebSocketServerOptions): Promise<WebSocketTransportServer> {
  const guard = new HandshakeGuard({ ...options, host: options.host ?? '127.0.0.1' });
  const host = options.host ?? '127.0.0.1';
  const { token, limits, limiter } = guard;
  const maxPayload = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload,
    perMessageDeflate: false,
    // Invalid UTF-8 is answered per message by the connection instead of killing the socket.
    skipUTF8Validation: true,
    handleProtocols: (offered) => (offered.has(ACP_KIT_PROTOCOL) ? ACP_KIT_PROTOCOL : false),
  });

  const serverOptions = {
    headersTimeout: limits.handshakeTimeoutMs,
    requestTimeout: limits.handshakeTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.handshakeTimeoutMs),
    keepAliveTimeout: 1000,
  };
  const server: Server = options.tls
    ? createHttpsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key })
    : createHttpServer(serverOptions);
  // Open connections plus sockets still handshaking: beyond this the listener drops new sockets.
  server.maxConnections = limits.maxConnections + limits.maxPendingHandshakes;

  server.on('request', (_request, response) => {
    response.writeHead(426, {
      'Content-Type': 'text/plain; charset=utf-8',
      Connection: 'close',
      Upgrade: 'websocket',
    });
    response.end('this endpoint speaks ACP over WebSocket only\n');
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'HPE_HEADER_OVERFLOW')
      refuseSocket(socket as Socket, 431, 'handshake headers too large');
    else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      refuseSocket(socket as Socket, 408, 'handshake took too long');
    else refuseSocket(socket as Socket, 400, 'bad request');
  });

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const address = socket.remoteAddress ?? 'unknown';
    const origin = request.headers.origin;
    const refuse = (status: number, reason: string, headers?: Record<string, string>): void => {
      refuseSocket(socket, status, reason, headers);
      try {
        options.onRefused?.({ address, status, reason, ...(origin !== undefined ? { origin } : {}) });
      } catch {
        // A failing log hook must not keep the socket open or take the server down.
      }
    };
    socket.on('error', () => socket.destroy());

    const pathname = (request.url ?? '/').split('?')[0];
    if (options.path !== undefined && pathname !== options.path)
      return refuse(404, 'no ACP endpoint at this path');
    const refusal = guard.check(request, address, { rate: true, capacity: true });
    if (refusal) return refuse(refusal.status, refusal.reason, refusal.headers);

    const release = limiter.acquire(address);
    socket.once('close', release);
    wss.handleUpgrade(request, socket, head, (ws) => {
      try {
        options.onConnection(
          limitSessions(webSocketTransport(ws, options), limits.maxSessionsPerConnection),
          request,
        );
      } catch {
        // A failing accept hook must not take the server (or the process) down with it.
        ws.close(1011, 'server error');
      }
    });
  });

  const { port, urlHost } = await listenOn(server, options.port ?? 0, host);
  return {
    port,
    url: `${options.tls ? 'wss' : 'ws'}://${urlHost}:${port}${options.path ?? ''}`,
    token,
    get openConnections() {
      return limiter.openConnections;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const client of wss.clients) client.terminate();
        server.closeAllConnections();
        server.close(() => wss.close(() => done()));
      }),
  };
}
