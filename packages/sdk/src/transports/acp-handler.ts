import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { DEFAULT_MAX_MESSAGE_BYTES, type Transport } from '../rpc/index.js';
import { HandshakeGuard, refuseSocket } from './handshake-guard.js';
import { FetchExchange, toHttpRequest } from './fetch-exchange.js';
import {
  CONNECTION_ID_HEADER,
  HttpEndpoint,
  type HttpEndpointOptions,
  type HttpRequest,
  type HttpResponse,
} from './http-endpoint.js';
import { limitSessions } from './session-limit.js';
import { destroySocket } from './socket-listeners.js';
import { webSocketTransport } from './websocket.js';
import type { HandshakeRefusal, WebSocketServerOptions } from './websocket-server.js';
import { ACP_KIT_PROTOCOL } from './websocket-token.js';

/** Which profile of the `/acp` endpoint a connection arrived on. */
export interface AcpConnectionInfo {
  profile: 'http' | 'websocket';
  /** Its `Acp-Connection-Id` (sent on the `initialize` answer, or on the WebSocket's 101). */
  connectionId: string;
}

/**
 * Options of {@link createAcpHandler}: the security settings, limits and hooks of
 * {@link listenAcp}, without those of a listener (port, TLS, path) — the server you mount the
 * handler in owns those.
 */
export interface AcpHandlerOptions
  extends Omit<WebSocketServerOptions, 'onConnection' | 'port' | 'path' | 'tls' | 'host'> {
  /**
   * The interface the server you mount the handler in listens on. Only `noAuth` reads it: a
   * handler without a token is refused (the call throws) unless this is a loopback address.
   */
  host?: string;
  /**
   * Whether clients reach the handler over TLS (`https`/`wss`, directly or through a proxy that
   * terminates it): the affinity cookie is then `Secure`. Default false.
   */
  secure?: boolean;
  /** Streamable HTTP settings: stream buffers, idle reclaim, affinity cookie, session lookup. */
  http?: HttpEndpointOptions;
  /** Called with one transport per accepted connection, of either profile. */
  onConnection(transport: Transport, request: HttpRequest, info: AcpConnectionInfo): void;
}

/** Where a fetch-style request came from: what a runtime knows of its peer. */
export interface AcpFetchInfo {
  /**
   * The client's address (for Hono on Node, `c.env.incoming.socket.remoteAddress`). The
   * per-address limits count by it; requests without one share the address `unknown`.
   */
  remoteAddress?: string;
}

/**
 * An ACP endpoint to mount in a server you run: the same endpoint {@link listenAcp} serves
 * (Streamable HTTP and WebSocket, with its token, `Origin`, limit and affinity rules), as
 * handlers. Each is a bound function: pass it on as it is.
 */
export interface AcpHandler {
  /**
   * A Node request handler, `(req, res)` of `node:http` (or `node:http2`'s compatibility API) or
   * Express, for the endpoint's path. It reads the body itself: mount it before any body parser
   * (a framework that parses bodies before its handlers run must leave this route's unread). It
   * serves whatever path it is given; route to it by path.
   */
  readonly node: (request: HttpRequest, response: HttpResponse) => void;
  /**
   * A Node `upgrade` listener (`server.on('upgrade', acp.upgrade)`) for WebSocket clients. It
   * serves every upgrade it is given: call it only for the endpoint's path if the server has
   * other WebSocket routes.
   */
  readonly upgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /**
   * A fetch-style handler: a web `Request` in, a `Response` out (an SSE stream for a GET), for
   * Hono, workers-style runtimes and anything that speaks `fetch`. WebSocket is not served here.
   */
  readonly fetch: (request: Request, info?: AcpFetchInfo) => Promise<Response>;
  /** The token clients must present; `undefined` only with `noAuth`. Keep it out of logs. */
  readonly token: string | undefined;
  /** Connections of both profiles open right now. */
  readonly openConnections: number;
  /** Ends every connection of the handler (the server it is mounted in is yours to close). */
  close(): Promise<void>;
}

/** What a listener that owns its sockets adds to a handler (how {@link listenAcp} tracks pending ones). */
export interface AcpHandlerHooks {
  /** The remote address a request is counted under. */
  addressOf?(request: HttpRequest): string;
  /** A request (or an upgrade, with its socket) passed the token check. */
  onAdmitted?(request: HttpRequest, socket?: Duplex): void;
}

const remoteAddressOf = (request: HttpRequest): string => request.socket?.remoteAddress ?? 'unknown';

/**
 * Makes a mountable ACP endpoint: the Node `(req, res)` and `upgrade` handlers and a fetch-style
 * handler of {@link AcpHandler}, sharing one set of connections and limits. Every request passes
 * the checks of {@link listenAcp} — `Origin` allow-list (403), the connection token in constant
 * time (401), and for each new connection the per-address handshake rate (429) and
 * open-connection caps (429/503) — and each connection is handed to `onConnection` as an
 * ordinary agent-side transport, limited in sessions.
 *
 * ```ts
 * const acp = createAcpHandler({ onConnection: (t) => agent.serve(new Connection(t)) });
 * app.all('/acp', acp.node);                       // Express
 * server.on('upgrade', acp.upgrade);               // WebSocket on the same server
 * hono.all('/acp', (c) => acp.fetch(c.req.raw));   // Hono
 * ```
 */
export function createAcpHandler(options: AcpHandlerOptions): AcpHandler {
  if (options.noAuth && options.host === undefined) {
    throw new Error(
      'noAuth needs host: the loopback interface the server you mount the handler in listens on',
    );
  }
  return buildAcpHandler(options, {});
}

/** {@link createAcpHandler} with a listener's hooks (used by {@link listenAcp}). */
export function buildAcpHandler(options: AcpHandlerOptions, hooks: AcpHandlerHooks): AcpHandler {
  const guard = new HandshakeGuard({ ...options, host: options.host ?? '127.0.0.1' });
  const { limits, limiter } = guard;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const addressOf = hooks.addressOf ?? remoteAddressOf;
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
      secure: options.secure === true,
      onConnection: (transport, request, connectionId) =>
        options.onConnection(transport, request, { profile: 'http', connectionId }),
      addressOf,
      ...(hooks.onAdmitted ? { onAdmitted: (request: HttpRequest) => hooks.onAdmitted?.(request) } : {}),
      onRefused: (request, refusal) =>
        report(remoteAddressOf(request), refusal.status, refusal.reason, request.headers.origin),
    },
    options.http,
  );

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: maxMessageBytes,
    perMessageDeflate: false,
    // Invalid UTF-8 is answered per message by the connection instead of killing the socket.
    skipUTF8Validation: true,
    handleProtocols: (offered) => (offered.has(ACP_KIT_PROTOCOL) ? ACP_KIT_PROTOCOL : false),
  });
  const upgradeIds = new WeakMap<IncomingMessage, string>();
  wss.on('headers', (headers, request) => {
    const id = upgradeIds.get(request);
    if (id !== undefined) headers.push(`${CONNECTION_ID_HEADER}: ${id}`);
    if (endpoint.affinityCookie !== undefined) headers.push(`Set-Cookie: ${endpoint.affinityCookie}`);
  });

  const node = (request: HttpRequest, response: HttpResponse): void => {
    endpoint.handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  };

  const upgrade = (request: IncomingMessage, duplex: Duplex, head: Buffer): void => {
    const socket = duplex as Socket;
    const address = addressOf(request as HttpRequest);
    const origin = request.headers.origin;
    const refuse = (status: number, reason: string, headers?: Record<string, string>): void => {
      refuseSocket(socket, status, reason, headers);
      report(address, status, reason, origin);
    };
    // Not a closure: one made here would keep this scope, the upgrade request with it, as long as
    // the socket lives.
    socket.on('error', destroySocket);
    if (request.headers.upgrade?.toLowerCase() !== 'websocket') {
      refuse(400, 'only Upgrade: websocket is served');
      return;
    }
    const refusal = guard.check(request, address, { rate: true, capacity: true });
    if (refusal) {
      refuse(refusal.status, refusal.reason, refusal.headers);
      return;
    }
    hooks.onAdmitted?.(request as HttpRequest, duplex);
    const release = limiter.acquire(address);
    socket.once('close', release);
    const connectionId = randomBytes(32).toString('base64url');
    upgradeIds.set(request, connectionId);
    wss.handleUpgrade(request, socket, head, (ws) => {
      try {
        options.onConnection(
          limitSessions(webSocketTransport(ws, options), limits.maxSessionsPerConnection),
          request as HttpRequest,
          { profile: 'websocket', connectionId },
        );
      } catch {
        // A failing accept hook must not take the server (or the process) down with it.
        ws.close(1011, 'server error');
      }
    });
  };

  const fetch = async (request: Request, info: AcpFetchInfo = {}): Promise<Response> => {
    const exchange = new FetchExchange(request.signal);
    endpoint.handle(toHttpRequest(request, info.remoteAddress), exchange).then(
      () => exchange.settleUnanswered(),
      () => {
        if (!exchange.headersSent) exchange.writeHead(500);
        exchange.end();
      },
    );
    return exchange.response;
  };

  return {
    node,
    upgrade,
    fetch,
    token: guard.token,
    get openConnections() {
      return limiter.openConnections;
    },
    close: () =>
      new Promise<void>((done) => {
        endpoint.closeAll();
        for (const client of wss.clients) client.terminate();
        wss.close(() => done());
      }),
  };
}
