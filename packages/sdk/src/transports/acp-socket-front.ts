/**
 * The socket layer of {@link listenAcp}: one TCP (or TLS) server that admits each socket within
 * the endpoint's budget and hands it to an HTTP/1.1 or an HTTP/2 server that never listen
 * themselves — by ALPN over TLS (h2 or http/1.1), by the HTTP/2 preface in cleartext (h2c with
 * prior knowledge, else HTTP/1.1, which is what Node's fetch speaks). It remembers the peer under
 * each HTTP/2 session, so a request is counted under its socket's address and settles its
 * socket's pending handshake.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createH2Server, type Http2Server, type Http2Session } from 'node:http2';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { AcpHandlerHooks } from './acp-handler.js';
import type { ResolvedConnectionLimits } from './connection-limits.js';
import { refuseUnread } from './handshake-guard.js';
import type { HttpRequest } from './http-endpoint.js';
import { PendingSockets, type PeerSocket, peerKey } from './pending-sockets.js';
import { destroySocket } from './socket-listeners.js';
import type { WebSocketTlsOptions } from './websocket-server.js';

const HTTP2_PREFACE = 'PRI * HTTP/2.0';

/**
 * The sockets an endpoint keeps open at most: over HTTP/1.1 each connection may hold its own stream,
 * one stream per session it may open, and the POSTs a client keeps in flight (8), plus the sockets
 * still waiting to authenticate. A socket over the budget is answered 503 with `Retry-After` and
 * closed (a TLS one is closed).
 */
export function socketBudget(limits: ResolvedConnectionLimits): number {
  return limits.maxConnections * (1 + limits.maxSessionsPerConnection + 8) + limits.maxPendingHandshakes;
}

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

/**
 * How long an HTTP/1.1 socket may sit idle between requests before the server closes it (Node's
 * default is 5 s). A Streamable HTTP client POSTs a prompt every few seconds; with 5 s most POSTs
 * needed a new TCP connection, and a busy Node process accepts one connection per event-loop turn
 * (libuv stopped accepting in a loop in 2022; seen with strace at 1 000 streaming sessions: one
 * accept4 per epoll_wait, the accept queue at 500–700 sockets, POSTs waiting 0.4–9 s in it).
 * Idle sockets still count against the socket budget.
 */
const IDLE_KEEP_ALIVE_MS = 60_000;

/** How the endpoint's HTTP/1.1 server times requests out. */
function http1Options(limits: ResolvedConnectionLimits) {
  return {
    headersTimeout: limits.handshakeTimeoutMs,
    requestTimeout: Math.max(limits.handshakeTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1000, limits.handshakeTimeoutMs),
    keepAliveTimeout: IDLE_KEEP_ALIVE_MS,
  };
}

/** The listening front, the two protocol servers behind it, and the sockets and sessions they hold. */
export class AcpSocketFront implements Required<AcpHandlerHooks> {
  /** The server that listens; every socket arrives here. */
  readonly server: Server;
  /** Serves the sockets that speak HTTP/1.1 (and their WebSocket upgrades). */
  readonly http1: HttpServer;
  /** Serves the sockets that speak HTTP/2. */
  readonly h2: Http2Server;
  readonly #secure: boolean;
  readonly #limits: ResolvedConnectionLimits;
  // Sockets that have not presented the token yet are capped per address and in total (below the
  // budget of authenticated ones), so a flood of them cannot stop anyone else.
  readonly #pending: PendingSockets;
  readonly #sessions = new Set<Http2Session>();
  readonly #sockets = new Set<Socket>();
  /** Sockets refused on arrival (being answered 503): no server reads them. */
  readonly #refused = new WeakSet<Socket>();
  /** The peer key of the socket under each HTTP/2 session (a cleartext one runs on a wrapper stream). */
  readonly #sessionPeer = new WeakMap<Http2Session, string>();
  // A cleartext h2 session runs on a wrapper stream that has no address: remember its socket's.
  readonly #sessionAddress = new WeakMap<Http2Session, string>();
  #dispatching: string | undefined;
  #dispatchingPeer: string | undefined;
  #openSockets = 0;
  /** The handshake timer of each cleartext socket whose first bytes have not come yet. */
  readonly #sniffing = new Map<Socket, ReturnType<typeof setTimeout>>();
  /**
   * The one `'close'` listener of every admitted socket (`this` is the socket), shared by all of
   * them. A closure per socket and per concern (budget, pending count, open set, handshake timer)
   * was five listeners, each with its once-wrapper, bound function and scope: over a kilobyte a
   * socket kept while open (issue #42's heap snapshot; a Streamable HTTP session holds about three
   * sockets).
   */
  readonly #closed: (this: Socket) => void;
  /** The `'close'` listener of a TLS socket, which runs over an admitted TCP one. */
  readonly #tlsClosed: (this: Socket) => void;

  constructor(tls: WebSocketTlsOptions | undefined, limits: ResolvedConnectionLimits) {
    this.#secure = tls !== undefined;
    this.#limits = limits;
    this.#pending = new PendingSockets(limits.maxPendingHandshakes, limits.maxPendingPerAddress);
    const forget = (socket: Socket): void => this.#forget(socket);
    const sockets = this.#sockets;
    this.#closed = function (this: Socket) {
      forget(this);
    };
    this.#tlsClosed = function (this: Socket) {
      sockets.delete(this);
    };
    this.http1 = createHttpServer(http1Options(limits));
    this.h2 = createH2Server({ maxSessionMemory: 16 });
    this.h2.on('session', (session) => {
      if (this.#dispatching !== undefined) this.#sessionAddress.set(session, this.#dispatching);
      if (this.#dispatchingPeer !== undefined) this.#sessionPeer.set(session, this.#dispatchingPeer);
      this.#sessions.add(session);
      session.once('close', () => this.#sessions.delete(session));
    });
    // The front server turns Nagle's algorithm off (node:http does so only on sockets it accepts
    // itself): it would hold each small SSE event back until the previous one is acknowledged.
    this.server = tls
      ? createTlsServer(
          {
            cert: tls.cert,
            key: tls.key,
            ALPNProtocols: ['h2', 'http/1.1'],
            handshakeTimeout: limits.handshakeTimeoutMs,
            noDelay: true,
          },
          (socket: TLSSocket) => this.#dispatch(socket, socket.alpnProtocol === 'h2'),
        )
      : createNetServer({ noDelay: true }, (socket) => this.#sniff(socket));
    this.server.on('tlsClientError', () => {});
    this.#admitWithinBudget();
    // The HTTP/1.1 server starts enforcing headersTimeout/requestTimeout once it is "listening".
    this.http1.emit('listening');
  }

  /** The remote address a request is counted under (its socket's, for a cleartext HTTP/2 session too). */
  addressOf(request: HttpRequest): string {
    const session = sessionOf(request);
    return (session && this.#sessionAddress.get(session)) ?? request.socket?.remoteAddress ?? 'unknown';
  }

  /** A request (or an upgrade, with its socket) passed the token check: its socket no longer waits. */
  onAdmitted(request: HttpRequest, socket?: Duplex): void {
    const session = sessionOf(request);
    const peer = (socket ?? request.socket) as PeerSocket | null;
    const key = session ? this.#sessionPeer.get(session) : peer ? peerKey(peer) : undefined;
    if (key !== undefined) this.#pending.settle(key);
  }

  /** Ends every HTTP/2 session and socket, and stops listening. */
  async close(): Promise<void> {
    for (const session of this.#sessions) session.destroy();
    for (const socket of this.#sockets) socket.destroy();
    this.http1.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  /**
   * Refuses a socket on arrival when the endpoint holds as many as its budget, or as many waiting
   * to authenticate as it may: in cleartext with a 503 the client reads (a TLS socket cannot be
   * answered before its handshake, so it is closed).
   */
  #admitWithinBudget(): void {
    // Over HTTP/1.1 one ACP connection holds a socket per open stream — its own and one per session,
    // up to maxSessionsPerConnection — plus its POSTs in flight (connectHttp keeps up to 8).
    const maxSockets = socketBudget(this.#limits);
    this.server.prependListener('connection', (socket: Socket) => {
      const refusal =
        this.#openSockets >= maxSockets
          ? `too many open sockets on this endpoint (at most ${maxSockets}): retry later`
          : this.#pending.admit(socket)
            ? undefined
            : 'too many sockets waiting to authenticate, from this address or in total: retry later';
      if (refusal === undefined) {
        this.#openSockets += 1;
        socket.on('close', this.#closed);
        return;
      }
      this.#refused.add(socket);
      if (this.#secure) socket.destroy();
      else refuseUnread(socket, 503, refusal, { 'Retry-After': '1' });
    });
  }

  /**
   * An admitted socket closed: it leaves the budget, the pending count (its peer key was read, and
   * so kept by the socket, when it was admitted), the open set and the handshake clock.
   */
  #forget(socket: Socket): void {
    this.#openSockets -= 1;
    this.#pending.settle(peerKey(socket));
    this.#sockets.delete(socket);
    const timer = this.#sniffing.get(socket);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.#sniffing.delete(socket);
    }
  }

  /** Reads a cleartext socket's first bytes: the HTTP/2 preface sends it to HTTP/2, anything else to HTTP/1.1. */
  #sniff(socket: Socket): void {
    if (socket.destroyed || this.#refused.has(socket)) return;
    const timer = setTimeout(() => socket.destroy(), this.#limits.handshakeTimeoutMs);
    this.#sniffing.set(socket, timer);
    socket.on('error', destroySocket);
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      this.#sniffing.delete(socket);
      socket.pause();
      if (chunk.toString('latin1', 0, HTTP2_PREFACE.length) !== HTTP2_PREFACE) {
        socket.unshift(chunk);
        this.#dispatch(socket, false);
        socket.resume();
        return;
      }
      // The HTTP/2 core reads a net socket's handle natively, past anything unshifted into
      // the JS stream: hand it a stream that starts with the bytes already read.
      this.#sockets.add(socket);
      this.#dispatching = socket.remoteAddress ?? 'unknown';
      this.#dispatchingPeer = peerKey(socket);
      try {
        this.h2.emit('connection', prefixed(socket, chunk));
      } finally {
        this.#dispatching = undefined;
        this.#dispatchingPeer = undefined;
      }
    });
  }

  /** Hands a socket to the HTTP/2 server or the HTTP/1.1 one. */
  #dispatch(socket: Socket, toH2: boolean): void {
    this.#sockets.add(socket);
    // A cleartext socket is the admitted one, forgotten by its own close listener.
    if (this.#secure) socket.on('close', this.#tlsClosed);
    if (!toH2) return void this.http1.emit('connection', socket);
    this.#dispatchingPeer = peerKey(socket);
    try {
      this.h2.emit('connection', socket);
    } finally {
      this.#dispatchingPeer = undefined;
    }
  }
}

/** The HTTP/2 session a request came on; undefined over HTTP/1.1. */
function sessionOf(request: HttpRequest): Http2Session | undefined {
  return (request as { stream?: { session?: Http2Session } }).stream?.session;
}
