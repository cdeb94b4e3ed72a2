import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { DEFAULT_MAX_MESSAGE_BYTES, type Transport } from '../rpc/index.js';
import { HandshakeGuard, refuseSocket } from './handshake-guard.js';
import {
  CONNECTION_ID_HEADER,
  HttpEndpoint,
  type HttpEndpointOptions,
  type HttpRequest,
} from './http-endpoint.js';
import { limitSessions } from './session-limit.js';
import { webSocketTransport } from './websocket.js';
import type { HandshakeRefusal, WebSocketServerOptions } from './websocket-server.js';
import { ACP_KIT_PROTOCOL } from './websocket-token.js';

/** Which profile of the `/acp` endpoint a connection arrived on. */
export interface AcpConnectionInfo {
  profile: 'http' | 'websocket';
  /** Its `Acp-Connection-Id` (sent on the `initialize` answer, or on the WebSocket's 101). */
  connectionId: string;
}

/** Options for {@link listenAcp}: those of {@link listenWebSocket}, plus the Streamable HTTP profile's. */
export interface AcpServerOptions extends Omit<WebSocketServerOptions, 'onConnection'> {
  /**
   * The endpoint's path. Default `/acp`. Streamable HTTP is served there only; WebSocket upgrades
   * are accepted there and, unless {@link webSocketAtPathOnly}, on any path (as acp-kit's WebSocket
   * endpoint always was).
   */
  path?: string;
  /** Refuse WebSocket upgrades (404) on any path but {@link path}. */
  webSocketAtPathOnly?: boolean;
  /** Streamable HTTP settings: stream buffers, idle reclaim, affinity cookie, session lookup. */
  http?: HttpEndpointOptions;
  /** Called with one transport per accepted connection, of either profile. */
  onConnection(transport: Transport, request: HttpRequest, info: AcpConnectionInfo): void;
}

/** A listening `/acp` endpoint. */
export interface AcpTransportServer {
  /** The bound port. */
  readonly port: number;
  /** `http://host:port/acp` (or `https://`) for Streamable HTTP clients. */
  readonly url: string;
  /** `ws://host:port/acp` (or `wss://`) for WebSocket clients. */
  readonly webSocketUrl: string;
  /** The token clients must present; `undefined` only with `noAuth`. Keep it out of logs. */
  readonly token: string | undefined;
  /** Connections of both profiles open right now. */
  readonly openConnections: number;
  /** Ends every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves ACP on one endpoint in both profiles of the upstream RFD "Streamable HTTP & WebSocket
 * Transport": POST/GET(SSE)/DELETE, and GET with `Upgrade: websocket`. Every request passes the
 * same checks as {@link listenWebSocket}'s handshakes — `Origin` allow-list (403), the connection
 * token in constant time on every request (401), and for each new connection the per-address
 * handshake rate (429) and open-connection caps (429/503). Each connection is handed to
 * `onConnection` as an ordinary agent-side transport, limited in sessions.
 */
export async function listenAcp(options: AcpServerOptions): Promise<AcpTransportServer> {
  const host = options.host ?? '127.0.0.1';
  const guard = new HandshakeGuard({ ...options, host });
  const { limits, limiter } = guard;
  const path = options.path ?? '/acp';
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const report = (address: string, status: number, reason: string, origin: string | undefined): void => {
    try {
      const refusal: HandshakeRefusal = {
        address,
        status,
        reason,
        ...(origin !== undefined ? { origin } : {}),
      };
      options.onRefused?.(refusal);
    } catch {
      // A failing log hook must not take the server down.
    }
  };

  const endpoint = new HttpEndpoint(
    {
      guard,
      maxMessageBytes,
      secure: options.tls !== undefined,
      onConnection: (transport, request, connectionId) =>
        options.onConnection(transport, request, { profile: 'http', connectionId }),
      onRefused: (request, refusal) =>
        report(
          request.socket?.remoteAddress ?? 'unknown',
          refusal.status,
          refusal.reason,
          request.headers.origin,
        ),
    },
    options.http,
  );

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: maxMessageBytes,
    perMessageDeflate: false,
    skipUTF8Validation: true,
    handleProtocols: (offered) => (offered.has(ACP_KIT_PROTOCOL) ? ACP_KIT_PROTOCOL : false),
  });
  const upgradeIds = new WeakMap<IncomingMessage, string>();
  wss.on('headers', (headers, request) => {
    const id = upgradeIds.get(request);
    if (id !== undefined) headers.push(`${CONNECTION_ID_HEADER}: ${id}`);
  });

  const serverOptions = {
    headersTimeout: limits.handshakeTimeoutMs,
    requestTimeout: Math.max(limits.handshakeTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1000, limits.handshakeTimeoutMs),
    keepAliveTimeout: 5000,
  };
  const server: Server = options.tls
    ? createHttpsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key })
    : createHttpServer(serverOptions);
  // Over HTTP/1.1 one ACP connection holds a socket per open stream plus its POSTs in flight.
  server.maxConnections = limits.maxConnections * 8 + limits.maxPendingHandshakes;

  server.on('request', (request, response) => {
    const pathname = (request.url ?? '/').split('?')[0];
    if (pathname !== path) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(`no ACP endpoint at this path: ACP is served at ${path}\n`);
      return;
    }
    endpoint.handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'HPE_HEADER_OVERFLOW')
      refuseSocket(socket as Socket, 431, 'request headers too large');
    else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      refuseSocket(socket as Socket, 408, 'request took too long');
    else refuseSocket(socket as Socket, 400, 'bad request');
  });

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const address = socket.remoteAddress ?? 'unknown';
    const origin = request.headers.origin;
    const refuse = (status: number, reason: string, headers?: Record<string, string>): void => {
      refuseSocket(socket, status, reason, headers);
      report(address, status, reason, origin);
    };
    socket.on('error', () => socket.destroy());
    const pathname = (request.url ?? '/').split('?')[0];
    if (options.webSocketAtPathOnly && pathname !== path) return refuse(404, 'no ACP endpoint at this path');
    if (request.headers.upgrade?.toLowerCase() !== 'websocket')
      return refuse(400, 'only Upgrade: websocket is served');
    const refusal = guard.check(request, address, { rate: true, capacity: true });
    if (refusal) return refuse(refusal.status, refusal.reason, refusal.headers);
    const release = limiter.acquire(address);
    socket.once('close', release);
    const connectionId = randomBytes(32).toString('base64url');
    upgradeIds.set(request, connectionId);
    wss.handleUpgrade(request, socket, head, (ws) => {
      try {
        options.onConnection(
          limitSessions(webSocketTransport(ws), limits.maxSessionsPerConnection),
          request,
          {
            profile: 'websocket',
            connectionId,
          },
        );
      } catch {
        ws.close(1011, 'server error');
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const secure = options.tls !== undefined;
  return {
    port,
    url: `${secure ? 'https' : 'http'}://${urlHost}:${port}${path}`,
    webSocketUrl: `${secure ? 'wss' : 'ws'}://${urlHost}:${port}${path}`,
    token: guard.token,
    get openConnections() {
      return limiter.openConnections;
    },
    close: () =>
      new Promise<void>((done) => {
        endpoint.closeAll();
        for (const client of wss.clients) client.terminate();
        server.closeAllConnections();
        server.close(() => wss.close(() => done()));
      }),
  };
}
