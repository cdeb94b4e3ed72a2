import type {
  FrameError,
  MessageReader,
  MessageReaderListener,
  MessageWriter,
  Transport,
} from '../rpc/index.js';
import { utf8ByteLength } from '../rpc/utf8-length.js';
import { WebSocketHandshakeError } from './websocket-handshake-error.js';
import { ACP_KIT_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from './websocket-protocol.js';

/** The part of a WHATWG `WebSocket` (a browser's, or any implementation of that API) this client uses. */
export interface WhatwgWebSocket {
  readonly readyState: number;
  /** The subprotocol the server selected (`''` for none). */
  readonly protocol: string;
  binaryType: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}

/** A WHATWG `WebSocket` constructor. */
export type WhatwgWebSocketConstructor = new (url: string, protocols?: string[]) => WhatwgWebSocket;

/** Options for the browser's {@link connectWebSocket}. */
export interface BrowserWebSocketClientOptions {
  /**
   * The server's connection token. A browser cannot set `Authorization` on a WebSocket handshake,
   * so it is offered as the subprotocol `acp-kit.token.<token>` beside `acp-kit` (which an acp-kit
   * server selects, never echoing the token); it never goes in the URL.
   */
  token?: string;
  /** Largest accepted message in bytes; a bigger one closes the socket (code 1009). Default 8 MiB. */
  maxMessageBytes?: number;
  /** Aborting it before the socket opens rejects; afterwards it closes the transport. */
  signal?: AbortSignal;
  /** The `WebSocket` constructor. Default `globalThis.WebSocket`. */
  WebSocket?: WhatwgWebSocketConstructor;
}

const OPEN = 1;
const CLOSED = 3;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** One JSON-RPC message per frame over a WHATWG WebSocket, both ways. */
class BrowserWebSocketTransport implements Transport {
  readonly reader: MessageReader;
  readonly writer: MessageWriter;
  readonly #socket: WhatwgWebSocket;
  #listener: MessageReaderListener | undefined;
  readonly #early: ((listener: MessageReaderListener) => void)[] = [];
  #closed = false;

  constructor(socket: WhatwgWebSocket, limit: number) {
    this.#socket = socket;
    socket.addEventListener('message', ({ data }) => {
      if (typeof data === 'string') {
        const bytes = utf8ByteLength(data);
        if (bytes > limit) return this.#tooLarge(bytes, limit);
        return this.#emit((listener) => listener.onMessage(data));
      }
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : undefined;
      if (bytes === undefined) return;
      if (bytes.length > limit) return this.#tooLarge(bytes.length, limit);
      // A binary frame is read like a text frame, as acp-kit's Node transports read it.
      let text: string;
      try {
        text = strictUtf8.decode(bytes);
      } catch {
        const error: FrameError = {
          reason: 'invalid-utf8',
          message: 'message is not valid UTF-8',
          excerpt: '',
          bytes: bytes.length,
        };
        return this.#emit((listener) => listener.onFrameError(error));
      }
      this.#emit((listener) => listener.onMessage(text));
    });
    socket.addEventListener('close', ({ code, reason }) => {
      const normal = code === 1000 || code === 1005;
      const error = normal
        ? undefined
        : new Error(`websocket closed with code ${code}${reason ? `: ${reason}` : ''}`);
      this.#emit((listener) => {
        this.#closed = true;
        listener.onClose(error);
      });
    });
    this.reader = {
      listen: (listener) => {
        if (this.#listener) throw new Error('WebSocket reader.listen() was already called');
        this.#listener = listener;
        for (const event of this.#early.splice(0)) event(listener);
      },
      dispose: () => {
        this.#listener = undefined;
        this.#closed = true;
      },
    };
    this.writer = {
      write: (json) => {
        if (socket.readyState !== OPEN) return Promise.reject(new Error('websocket is not open'));
        socket.send(json);
        return Promise.resolve();
      },
      close: () => this.close(),
    };
  }

  /** Closes the socket normally (code 1000) and resolves once it is closed. */
  close(): Promise<void> {
    if (this.#socket.readyState === CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.addEventListener('close', () => resolve());
      this.#socket.close(1000);
    });
  }

  #tooLarge(bytes: number, limit: number): void {
    this.#socket.close(1009, 'message too large');
    const error = new Error(`websocket message of ${bytes} bytes exceeds the limit of ${limit} bytes`);
    this.#emit((listener) => {
      this.#closed = true;
      listener.onClose(error);
    });
  }

  #emit(event: (listener: MessageReaderListener) => void): void {
    if (this.#closed) return;
    if (this.#listener) event(this.#listener);
    else this.#early.push(event);
  }
}

/**
 * Connects to an ACP WebSocket endpoint (`ws://` or `wss://`, e.g. `ws://127.0.0.1:8400/acp`) with
 * the browser's `WebSocket` and resolves with a {@link Transport} a `Client` uses unchanged, once
 * the socket is open. Browser-safe: no Node module is imported. A handshake that fails rejects with
 * a {@link WebSocketHandshakeError} of status 0: a browser does not tell a page why (a wrong token,
 * 401, and an origin not allowed, 403, look alike there; the server's log says which).
 */
export function connectWebSocket(
  url: string,
  options: BrowserWebSocketClientOptions = {},
): Promise<Transport> {
  const Impl = options.WebSocket ?? (globalThis as { WebSocket?: WhatwgWebSocketConstructor }).WebSocket;
  if (typeof Impl !== 'function')
    return Promise.reject(
      new Error('connectWebSocket needs a WebSocket (globalThis.WebSocket or options.WebSocket)'),
    );
  if (options.signal?.aborted) return Promise.reject(options.signal.reason);
  const protocols =
    options.token === undefined ? [] : [ACP_KIT_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${options.token}`];
  const socket = new Impl(url, protocols);
  socket.binaryType = 'arraybuffer';
  // Created before 'open' so no early frame is missed.
  const transport = new BrowserWebSocketTransport(socket, options.maxMessageBytes ?? 8 * 1024 * 1024);
  return new Promise((resolve, reject) => {
    let open = false;
    const abort = (): void => {
      if (open) void transport.close();
      else {
        socket.close();
        reject(options.signal?.reason);
      }
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    socket.addEventListener('open', () => {
      open = true;
      resolve(transport);
    });
    socket.addEventListener('close', ({ code }) => {
      if (open) return;
      options.signal?.removeEventListener('abort', abort);
      reject(
        new WebSocketHandshakeError(
          0,
          `the connection to ${url} closed before it opened (code ${code}): the server refused the handshake (wrong or missing token, origin not allowed, a connection limit) or could not be reached`,
        ),
      );
    });
  });
}
