import type { SecureContextOptions } from 'node:tls';
import { WebSocket } from 'ws';
import { DEFAULT_MAX_MESSAGE_BYTES, type Transport } from '../rpc/index.js';
import type { CookieStore } from './cookie-jar.js';
import { type WebSocketTransportOptions, webSocketTransport } from './websocket.js';
import { WebSocketHandshakeError } from './websocket-handshake-error.js';

export { WebSocketHandshakeError };

/** Options for {@link connectWebSocket}. */
export interface WebSocketClientOptions extends WebSocketTransportOptions {
  /** The server's connection token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Certificate authorities to trust for `wss://` (e.g. a self-signed server certificate). */
  ca?: SecureContextOptions['ca'];
  /** Extra HTTP headers for the handshake. */
  headers?: Record<string, string>;
  /**
   * Where the server's cookies are kept: sent on the handshake, and given the `Set-Cookie` headers
   * of its 101 (the RFD requires clients to keep and return cookies on WebSocket too). Pass the
   * store of an earlier connection to keep a load balancer's affinity across a reconnect.
   */
  cookies?: CookieStore;
}

/**
 * Connects to a WebSocket server (`ws://` or `wss://`) and resolves with the transport once the
 * socket is open. A refused handshake rejects with a {@link WebSocketHandshakeError}. To survive a
 * dropped socket, pass `() => connectWebSocket(url, options)` to `connectClient`.
 */
export function connectWebSocket(url: string, options: WebSocketClientOptions = {}): Promise<Transport> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  const cookie = options.cookies?.header();
  if (cookie !== undefined) headers.Cookie = cookie;
  const socket = new WebSocket(url, {
    maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    skipUTF8Validation: true,
    headers,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
  });
  // Created before 'open' so no early frame is missed.
  const transport = webSocketTransport(socket);
  socket.once('upgrade', (response) => {
    const setCookie = response.headers['set-cookie'];
    if (options.cookies && setCookie !== undefined) options.cookies.store(setCookie);
  });
  return new Promise((resolve, reject) => {
    socket.once('unexpected-response', (request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (body.length < 1024) body += chunk;
      });
      response.once('end', () => {
        reject(new WebSocketHandshakeError(response.statusCode ?? 0, body.trim().slice(0, 1024)));
        request.destroy();
      });
      response.once('error', () => {
        reject(new WebSocketHandshakeError(response.statusCode ?? 0, body.trim().slice(0, 1024)));
      });
    });
    socket.once('error', reject);
    socket.once('open', () => {
      socket.off('error', reject);
      resolve(transport);
    });
  });
}
