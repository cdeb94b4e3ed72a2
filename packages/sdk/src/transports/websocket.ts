import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  decodeStrict,
  type FrameError,
  type MessageReader,
  type MessageReaderListener,
  type MessageWriter,
  type Transport,
} from '../rpc/index.js';

/** Options shared by the WebSocket server and client transports. */
export interface WebSocketTransportOptions {
  /**
   * Largest accepted message in bytes. A bigger frame makes `ws` close the socket (code 1009)
   * without buffering it whole: a WebSocket cannot skip one frame and carry on the way ndjson can.
   * Default 8 MiB.
   */
  maxMessageBytes?: number;
}

type ReaderEvent =
  | { type: 'message'; text: string }
  | { type: 'frame-error'; error: FrameError }
  | { type: 'close'; reason?: Error };

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/**
 * Reads one JSON-RPC message per WebSocket text frame. Frames that arrive before `listen()` are
 * held, because a socket (unlike a paused stream) delivers as soon as it is open.
 */
export class WebSocketMessageReader implements MessageReader {
  private listener: MessageReaderListener | undefined;
  private early: ReaderEvent[] = [];
  private closed = false;
  private lastError: Error | undefined;

  constructor(private readonly socket: WebSocket) {
    socket.on('message', this.onMessage);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  /** Delivers held frames, then live ones. */
  listen(listener: MessageReaderListener): void {
    if (this.listener) throw new Error('WebSocketMessageReader.listen() was already called');
    this.listener = listener;
    for (const event of this.early.splice(0)) this.deliver(event);
  }

  /** Stops delivering; the socket itself is closed by the writer. */
  dispose(): void {
    this.closed = true;
    this.socket.off('message', this.onMessage);
    this.socket.off('close', this.onClose);
  }

  private readonly onMessage = (data: RawData, isBinary: boolean): void => {
    const bytes = toBytes(data);
    if (isBinary) {
      this.emit({
        type: 'frame-error',
        error: {
          reason: 'binary',
          message: 'binary frames are not JSON-RPC messages',
          excerpt: '',
          bytes: bytes.length,
        },
      });
      return;
    }
    const decoded = decodeStrict(bytes);
    this.emit(
      decoded.ok ? { type: 'message', text: decoded.text } : { type: 'frame-error', error: decoded.error },
    );
  };

  private readonly onError = (error: Error): void => {
    this.lastError = error;
  };

  private readonly onClose = (code: number, reason: Buffer): void => {
    const normal = code === 1000 || code === 1005;
    const why = reason.length > 0 ? `: ${reason.toString('utf8')}` : '';
    const detail = this.lastError ? ` (${this.lastError.message})` : '';
    this.emit({
      type: 'close',
      reason: normal ? undefined : new Error(`websocket closed with code ${code}${why}${detail}`),
    });
  };

  private emit(event: ReaderEvent): void {
    if (this.listener) this.deliver(event);
    else this.early.push(event);
  }

  private deliver(event: ReaderEvent): void {
    if (this.closed || !this.listener) return;
    if (event.type === 'message') this.listener.onMessage(event.text);
    else if (event.type === 'frame-error') this.listener.onFrameError(event.error);
    else {
      this.closed = true;
      this.listener.onClose(event.reason);
    }
  }
}

/**
 * Sends each message as one text frame. A write resolves when `ws` has handed the frame to the
 * socket, so the connection's queued-bytes count covers what `ws` still buffers.
 */
export class WebSocketMessageWriter implements MessageWriter {
  constructor(private readonly socket: WebSocket) {}

  /** Sends one text frame. */
  write(json: string): Promise<void> {
    if (this.socket.readyState !== WebSocket.OPEN) return Promise.reject(new Error('websocket is not open'));
    return new Promise((resolve, reject) => {
      this.socket.send(json, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Closes the socket normally (code 1000) and resolves once it is closed. */
  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close(1000);
    });
  }
}

/** Wraps an open `ws` socket as a transport. */
export function webSocketTransport(socket: WebSocket): Transport {
  return { reader: new WebSocketMessageReader(socket), writer: new WebSocketMessageWriter(socket) };
}

/** Options for {@link listenWebSocket}. */
export interface WebSocketServerOptions extends WebSocketTransportOptions {
  /** Interface to bind. Default `127.0.0.1` (never all interfaces by accident). */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Only accept upgrades on this path, e.g. `/acp`. */
  path?: string;
  /** Called with one transport per accepted client; wrap each in its own Connection. */
  onConnection(transport: Transport, request: IncomingMessage): void;
}

/** A listening WebSocket server that turns each client into a transport. */
export interface WebSocketTransportServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** `ws://host:port/path` for clients to connect to. */
  readonly url: string;
  /** Closes every client socket and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a WebSocket server for several clients on one agent: every accepted socket becomes its
 * own transport, one JSON-RPC message per text frame.
 */
export function listenWebSocket(options: WebSocketServerOptions): Promise<WebSocketTransportServer> {
  const host = options.host ?? '127.0.0.1';
  const server = new WebSocketServer({
    host,
    port: options.port ?? 0,
    path: options.path,
    maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    // Invalid UTF-8 is answered per message by the connection instead of killing the socket.
    skipUTF8Validation: true,
  });
  server.on('connection', (socket, request) => {
    try {
      options.onConnection(webSocketTransport(socket), request);
    } catch {
      // A failing accept hook must not take the server (or the process) down with it.
      socket.close(1011, 'server error');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        port,
        url: `ws://${urlHost}:${port}${options.path ?? ''}`,
        close: () =>
          new Promise<void>((done) => {
            for (const client of server.clients) client.terminate();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Connects to a WebSocket server and resolves with the transport once the socket is open. */
export function connectWebSocket(url: string, options: WebSocketTransportOptions = {}): Promise<Transport> {
  const socket = new WebSocket(url, {
    maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    skipUTF8Validation: true,
  });
  // Created before 'open' so no early frame is missed.
  const transport = webSocketTransport(socket);
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => {
      socket.off('error', reject);
      resolve(transport);
    });
  });
}
