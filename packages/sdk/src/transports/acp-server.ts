/**
 * {@link listenAcp}: the `/acp` endpoint in a listener of its own — its options and result, and
 * the routes in front of the endpoint's handler (`/health`, 404 elsewhere, WebSocket upgrades);
 * the sockets underneath are `acp-socket-front.ts`'s.
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Http2Server } from 'node:http2';
import type { Socket } from 'node:net';
import type { Transport } from '../rpc/index.js';
import { type AcpConnectionInfo, type AcpHandler, buildAcpHandler } from './acp-handler.js';
import { AcpSocketFront } from './acp-socket-front.js';
import { resolveLimits } from './connection-limits.js';
import { refuseSocket } from './handshake-guard.js';
import type { HttpEndpointOptions, HttpRequest, HttpResponse } from './http-endpoint.js';
import { listenOn } from './listen-on.js';
import type { WebSocketServerOptions } from './websocket-server.js';

export type { AcpConnectionInfo } from './acp-handler.js';

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
  /**
   * Serves `GET /health` (outside the ACP endpoint, without its token) for an operator or a load
   * balancer to poll: the report as JSON, with status 200 when `ok` is true, else 503.
   */
  health?: () => Promise<{ readonly ok: boolean }> | { readonly ok: boolean };
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
  const path = options.path ?? '/acp';
  const secure = options.tls !== undefined;
  const handler = buildAcpHandler(
    { ...options, host, secure },
    {
      addressOf: (request) => sockets.addressOf(request),
      onAdmitted: (request, socket) => sockets.onAdmitted(request, socket),
    },
  );
  const sockets = new AcpSocketFront(options.tls, resolveLimits(options.limits));
  routeRequests(sockets.http1, sockets.h2, handler, options, path);
  routeUpgrades(sockets.http1, handler, options, path);

  const { port, urlHost } = await listenOn(sockets.server, options.port ?? 0, host);
  return {
    port,
    url: `${secure ? 'https' : 'http'}://${urlHost}:${port}${path}`,
    webSocketUrl: `${secure ? 'wss' : 'ws'}://${urlHost}:${port}${path}`,
    token: handler.token,
    get openConnections() {
      return handler.openConnections;
    },
    close: async () => {
      const closed = handler.close();
      await sockets.close();
      await closed;
    },
  };
}

/**
 * Routes the requests of both protocol servers: `GET /health` to {@link AcpServerOptions.health}
 * when given, `path` to the endpoint's handler, anything else 404; a request HTTP/1.1 cannot
 * parse is answered 431, 408 or 400.
 */
function routeRequests(
  http1: HttpServer,
  h2: Http2Server,
  handler: AcpHandler,
  options: AcpServerOptions,
  path: string,
): void {
  const onRequest = (request: HttpRequest, response: HttpResponse): void => {
    const pathname = (request.url ?? '/').split('?')[0];
    const health = options.health;
    if (health !== undefined && pathname === '/health' && pathname !== path && request.method === 'GET') {
      Promise.resolve()
        .then(health)
        .then(
          (report) => {
            response.writeHead(report.ok ? 200 : 503, { 'Content-Type': 'application/json' });
            response.end(`${JSON.stringify(report)}\n`);
          },
          (error: unknown) => {
            response.writeHead(503, { 'Content-Type': 'application/json' });
            response.end(`${JSON.stringify({ ok: false, error: String(error) })}\n`);
          },
        );
      return;
    }
    if (pathname !== path) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(`no ACP endpoint at this path: ACP is served at ${path}\n`);
      return;
    }
    handler.node(request, response);
  };
  h2.on('request', onRequest);
  http1.on('request', onRequest);
  http1.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'HPE_HEADER_OVERFLOW')
      refuseSocket(socket as Socket, 431, 'request headers too large');
    else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      refuseSocket(socket as Socket, 408, 'request took too long');
    else refuseSocket(socket as Socket, 400, 'bad request');
  });
}

/**
 * Routes WebSocket upgrades to the endpoint's handler: on any path, or with
 * {@link AcpServerOptions.webSocketAtPathOnly} only on `path` (elsewhere 404, reported to `onRefused`).
 */
function routeUpgrades(
  http1: HttpServer,
  handler: AcpHandler,
  options: AcpServerOptions,
  path: string,
): void {
  http1.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const pathname = (request.url ?? '/').split('?')[0];
    if (options.webSocketAtPathOnly && pathname !== path) {
      socket.on('error', () => socket.destroy());
      refuseSocket(socket, 404, 'no ACP endpoint at this path');
      try {
        options.onRefused?.({
          address: socket.remoteAddress ?? 'unknown',
          status: 404,
          reason: 'no ACP endpoint at this path',
          ...(request.headers.origin !== undefined ? { origin: request.headers.origin } : {}),
        });
      } catch {
        // A failing log hook must not take the server down.
      }
      return;
    }
    handler.upgrade(request, socket, head);
  });
}
