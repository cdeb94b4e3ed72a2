import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import {
  type ConnectionLimits,
  ConnectionLimiter,
  type ResolvedConnectionLimits,
  resolveLimits,
} from './connection-limits.js';
import { isLoopbackHost } from './loopback.js';
import { generateToken, presentedToken, tokensMatch, validateToken } from './websocket-token.js';

/** The security settings every network listener of this SDK shares (WebSocket, Streamable HTTP). */
export interface HandshakeGuardOptions {
  /** The interface the listener binds; `noAuth` is refused off loopback. */
  host: string;
  /** The connection token; a fresh random one when absent (unless `noAuth`). */
  token?: string;
  /** Accept clients without a token (loopback only, never together with `token`). */
  noAuth?: boolean;
  /** Exact origins whose web pages may connect. */
  allowedOrigins?: readonly string[];
  /** Connection, handshake-rate and session limits. */
  limits?: ConnectionLimits;
}

/** A request the guard refused: the HTTP status, a reason phrase for the peer, extra headers. */
export interface GuardRefusal {
  status: number;
  reason: string;
  headers?: Record<string, string>;
}

/** Which checks {@link HandshakeGuard.check} applies beyond origin and token. */
export interface GuardChecks {
  /** Spend one handshake from the address's allowance (429 when none is left). */
  rate?: boolean;
  /** Require room for one more open connection (429 per address, 503 in total). */
  capacity?: boolean;
}

function normalizeOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new Error(`allowed origin "${origin}" is not a URL like https://app.example`);
  }
  if (url.origin === 'null' || url.origin !== origin.replace(/\/$/, '').toLowerCase()) {
    throw new Error(`allowed origin "${origin}" must be exactly scheme://host[:port], like ${url.origin}`);
  }
  return url.origin;
}

/**
 * The checks a request must pass before any ACP message of it is read, in this order: handshake
 * rate per address (429), `Origin` against the allow-list (403), the address's allowance of failed
 * token checks (429), the connection token compared in constant time (401, spending one of that
 * allowance), then open-connection caps (429 per address, 503 in total). Constructing one
 * validates the settings (bad origin, bad token, `noAuth` off loopback) and throws on nonsense.
 */
export class HandshakeGuard {
  /** The token clients must present; `undefined` only with `noAuth`. */
  readonly token: string | undefined;
  /** The resolved limits. */
  readonly limits: ResolvedConnectionLimits;
  /** Open-connection counts and per-address handshake allowances. */
  readonly limiter: ConnectionLimiter;
  readonly #allowed: Set<string>;

  constructor(options: HandshakeGuardOptions) {
    if (options.noAuth && options.token !== undefined)
      throw new Error('pass either token or noAuth, not both');
    if (options.noAuth && !isLoopbackHost(options.host)) {
      throw new Error(
        `refusing to listen on ${options.host} without a connection token: noAuth is allowed on loopback only`,
      );
    }
    this.token = options.noAuth ? undefined : validateToken(options.token ?? generateToken());
    this.#allowed = new Set((options.allowedOrigins ?? []).map(normalizeOrigin));
    this.limits = resolveLimits(options.limits);
    this.limiter = new ConnectionLimiter(this.limits);
  }

  /** Whether a web page from `origin` may connect (a request without `Origin` is not a browser's). */
  allowsOrigin(origin: string | undefined): boolean {
    return origin === undefined || this.#allowed.has(origin);
  }

  /** Checks one request from `address`; `undefined` when it may proceed. */
  check(
    request: Pick<IncomingMessage, 'headers'>,
    address: string,
    checks: GuardChecks = {},
  ): GuardRefusal | undefined {
    if (checks.rate) {
      const rate = this.limiter.takeHandshake(address);
      if (rate)
        return {
          status: rate.status,
          reason: rate.reason,
          headers: { 'Retry-After': String(rate.retryAfter ?? 1) },
        };
    }
    if (!this.allowsOrigin(request.headers.origin)) {
      return {
        status: 403,
        reason: 'origin not allowed: this endpoint accepts web pages only from its configured origins',
      };
    }
    if (this.token !== undefined) {
      const throttled = this.limiter.checkAuthFailures(address);
      if (throttled)
        return {
          status: throttled.status,
          reason: throttled.reason,
          headers: { 'Retry-After': String(throttled.retryAfter ?? 1) },
        };
    }
    if (this.token !== undefined && !tokensMatch(presentedToken(request), this.token)) {
      this.limiter.recordAuthFailure(address);
      return {
        status: 401,
        reason: 'missing or wrong connection token',
        headers: { 'WWW-Authenticate': 'Bearer realm="acp"' },
      };
    }
    if (checks.capacity) {
      const capacity = this.limiter.checkCapacity(address);
      if (capacity) {
        return {
          status: capacity.status,
          reason: capacity.reason,
          headers: { 'Retry-After': String(capacity.retryAfter ?? 1) },
        };
      }
    }
    return undefined;
  }
}

/** Writes a small HTTP error response on a raw socket and closes it once it is flushed. */
export function refuseSocket(
  socket: Socket,
  status: number,
  reason: string,
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `${reason}\n`;
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Refused'}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * Answers a socket refused before anything of it was read (an HTTP/1.1 status line, `Connection:
 * close` and `reason`), reading and discarding what the client sends meanwhile so that its request
 * arriving after our close does not reset the connection before it read the answer; the socket is
 * destroyed once the client closes, or two seconds later at most.
 */
export function refuseUnread(
  socket: Socket,
  status: number,
  reason: string,
  headers: Record<string, string> = {},
): void {
  socket.on('error', () => socket.destroy());
  socket.on('data', () => {});
  const timer = setTimeout(() => socket.destroy(), 2000);
  timer.unref?.();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  if (!socket.writable) return void socket.destroy();
  const body = `${reason}\n`;
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Refused'}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
