import { listenOn } from './listen-on.js';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createH2Server, type Http2Session } from 'node:http2';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Transport } from '../rpc/index.js';
import { type AcpConnectionInfo, buildAcpHandler } from './acp-handler.js';
import { type ResolvedConnectionLimits, resolveLimits } from './connection-limits.js';
import { refuseSocket, refuseUnread } from './handshake-guard.js';
import type { HttpEndpointOptions, HttpRequest, HttpResponse } from './http-endpoint.js';
import { PendingSockets, type PeerSocket, peerKey } from './pending-sockets.js';
import type { WebSocketServerOptions } from './websocket-server.js';

export type { AcpConnectionInfo } from './acp-handler.js';

/** A duplex over `socket` whose readable side starts with `first` (bytes already read from it). */
function prefixed(socket: Socket, first: Buffer): Duplex {
  const duplex = new Duplex({
    read: () => void socket.resume(),
    write: (chunk: Buffer, _encoding, done) => void socket.write(chunk, done),
    final: (done) => {
      socket.end();
      done();
    },
    destroy: (error, done) => {
      socket.destroy();
      done(error);
    },
  });
  duplex.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.once('end', () => duplex.push(null));
  socket.once('close', () => duplex.destroy());
  socket.once('error', (error) => duplex.destroy(error));
  socket.resume();
  return duplex;
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
 * How long an HTTP/1.1 socket may sit idle between requests before the server closes it (Node's
 * default is 5 s). A Streamable HTTP client POSTs a prompt every few seconds; with 5 s most POSTs
 * needed a new TCP connection, and a busy Node process accepts one connection per event-loop turn
 * (seen with strace at 1 000 streaming sessions: one accept4 per epoll_wait, the accept queue at
 * 500–700 sockets, POSTs waiting 0.4–9 s in it). Idle sockets still count against the socket budget.
 */
const IDLE_KEEP_ALIVE_MS = 60_000;

/**
 * The sockets an endpoint keeps open at most: over HTTP/1.1 each connection may hold its own stream,
 * one stream per session it may open, and the POSTs a client keeps in flight (8), plus the sockets
 * still waiting to authenticate. A socket over the budget is answered 503 with `Retry-After` and
 * closed (a TLS one is closed).
 */
export function socketBudget(limits: ResolvedConnectionLimits): number {
  return limits.maxConnections * (1 + limits.maxSessionsPerConnection + 8) + limits.maxPendingHandshakes;
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

  /** The peer key of the socket under each HTTP/2 session (a cleartext one runs on a wrapper stream). */
  const sessionPeer = new WeakMap<Http2Session, string>();
  // A cleartext h2 session runs on a wrapper stream that has no address: remember its socket's.
  const sessionAddress = new WeakMap<Http2Session, string>();
  const sessionOf = (request: HttpRequest): Http2Session | undefined =>
    (request as { stream?: { session?: Http2Session } }).stream?.session;
  const handler = buildAcpHandler(
    { ...options, host, secure },
    {
      addressOf: (request) => {
        const session = sessionOf(request);
        return (session && sessionAddress.get(session)) ?? request.socket?.remoteAddress ?? 'unknown';
      },
      onAdmitted: (request, socket) => {
        const session = sessionOf(request);
        const peer = (socket ?? request.socket) as PeerSocket | null;
        const key = session ? sessionPeer.get(session) : peer ? peerKey(peer) : undefined;
        if (key !== undefined) pending.settle(key);
      },
    },
  );
  const limits = resolveLimits(options.limits);
  // Sockets that have not presented the token yet are capped per address and in total (below the
  // budget of authenticated ones), so a flood of them cannot stop anyone else.
  const pending = new PendingSockets(limits.maxPendingHandshakes, limits.maxPendingPerAddress);

  const serverOptions = {
    headersTimeout: limits.handshakeTimeoutMs,
    requestTimeout: Math.max(limits.handshakeTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1000, limits.handshakeTimeoutMs),
    keepAliveTimeout: IDLE_KEEP_ALIVE_MS,
  };
  // Two protocol servers that never listen themselves: the front server below hands each socket to
  // one of them — by ALPN over TLS (h2 or http/1.1), by the HTTP/2 preface in cleartext (h2c with
  // prior knowledge, else HTTP/1.1, which is what Node's fetch speaks).
  // The front server turns Nagle's algorithm off (node:http does so only on sockets it accepts
  // itself): it would hold each small SSE event back until the previous one is acknowledged.
  const server = createHttpServer(serverOptions);
  const h2 = createH2Server({ maxSessionMemory: 16 });
  const sessions = new Set<Http2Session>();
  let dispatching: string | undefined;
  let dispatchingPeer: string | undefined;
  h2.on('session', (session) => {
    if (dispatching !== undefined) sessionAddress.set(session, dispatching);
    if (dispatchingPeer !== undefined) sessionPeer.set(session, dispatchingPeer);
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const sockets = new Set<Socket>();
  const dispatch = (socket: Socket, toH2: boolean): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (!toH2) return void server.emit('connection', socket);
    dispatchingPeer = peerKey(socket);
    try {
      h2.emit('connection', socket);
    } finally {
      dispatchingPeer = undefined;
    }
  };
  /** Sockets refused on arrival (being answered 503): no server reads them. */
  const refused = new WeakSet<Socket>();
  const HTTP2_PREFACE = 'PRI * HTTP/2.0';
  const front: Server = options.tls
    ? createTlsServer(
        {
          cert: options.tls.cert,
          key: options.tls.key,
          ALPNProtocols: ['h2', 'http/1.1'],
          handshakeTimeout: limits.handshakeTimeoutMs,
          noDelay: true,
        },
        (socket: TLSSocket) => dispatch(socket, socket.alpnProtocol === 'h2'),
      )
    : createNetServer({ noDelay: true }, (socket) => {
        if (socket.destroyed || refused.has(socket)) return;
        const timer = setTimeout(() => socket.destroy(), limits.handshakeTimeoutMs);
        socket.once('error', () => socket.destroy());
        socket.once('close', () => clearTimeout(timer));
        socket.once('data', (chunk: Buffer) => {
          clearTimeout(timer);
          socket.pause();
          if (chunk.toString('latin1', 0, HTTP2_PREFACE.length) !== HTTP2_PREFACE) {
            socket.unshift(chunk);
            dispatch(socket, false);
            socket.resume();
            return;
          }
          // The HTTP/2 core reads a net socket's handle natively, past anything unshifted into
          // the JS stream: hand it a stream that starts with the bytes already read.
          sockets.add(socket);
          socket.once('close', () => sockets.delete(socket));
          dispatching = socket.remoteAddress ?? 'unknown';
          dispatchingPeer = peerKey(socket);
          try {
            h2.emit('connection', prefixed(socket, chunk));
          } finally {
            dispatching = undefined;
            dispatchingPeer = undefined;
          }
        });
      });
  front.on('tlsClientError', () => {});
  // Over HTTP/1.1 one ACP connection holds a socket per open stream — its own and one per session,
  // up to maxSessionsPerConnection — plus its POSTs in flight (connectHttp keeps up to 8).
  const maxSockets = socketBudget(limits);
  let openSockets = 0;
  front.prependListener('connection', (socket: Socket) => {
    const refusal =
      openSockets >= maxSockets
        ? `too many open sockets on this endpoint (at most ${maxSockets}): retry later`
        : pending.admit(socket)
          ? undefined
          : 'too many sockets waiting to authenticate, from this address or in total: retry later';
    if (refusal === undefined) {
      openSockets += 1;
      socket.once('close', () => {
        openSockets -= 1;
      });
      return;
    }
    // In cleartext the client reads why (a TLS socket cannot be answered before its handshake).
    refused.add(socket);
    if (secure) socket.destroy();
    else refuseUnread(socket, 503, refusal, { 'Retry-After': '1' });
  });
  // The HTTP/1.1 server starts enforcing headersTimeout/requestTimeout once it is "listening".
  server.emit('listening');

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
  server.on('request', onRequest);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'HPE_HEADER_OVERFLOW')
      refuseSocket(socket as Socket, 431, 'request headers too large');
    else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      refuseSocket(socket as Socket, 408, 'request took too long');
    else refuseSocket(socket as Socket, 400, 'bad request');
  });

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
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

  const { port, urlHost } = await listenOn(front, options.port ?? 0, host);
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
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => front.close(() => done()));
      await closed;
    },
  };
}
