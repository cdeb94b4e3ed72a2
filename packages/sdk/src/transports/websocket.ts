import { type RawData, WebSocket } from 'ws';
import {
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
  /**
   * Bytes the socket may hold that its peer has not read yet, before a write. Default 4 MiB (the
   * bound of a Streamable HTTP stream). A write made while more than this waits closes the socket
   * with code 1008 and a reason naming the bound: a peer that stopped reading costs its own
   * connection, never unbounded memory. One message may pass the bound when the socket is below it.
   */
  maxBufferedBytes?: number;
}

/** The default of {@link WebSocketTransportOptions.maxBufferedBytes}. */
export const DEFAULT_MAX_WEBSOCKET_BUFFERED_BYTES = 4 * 1024 * 1024;

/** The close code of a socket ended because its peer broke a bound (RFC 6455 "policy violation"). */
export const WEBSOCKET_BOUND_CLOSE_CODE = 1008;

/** A close reason is at most 123 bytes (RFC 6455 §5.5); longer ones are cut. */
const closeReason = (reason: string): string =>
  Buffer.byteLength(reason) <= 123 ? reason : `${Buffer.from(reason).subarray(0, 110).toString('utf8')}...`;

type ReaderEvent =
  | { type: 'message'; text: string }
  | { type: 'frame-error'; error: FrameError }
  | { type: 'close'; reason?: Error };

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/**
 * Reads one JSON-RPC message per WebSocket frame: a text frame, or a binary frame whose bytes are
 * UTF-8 JSON text (read exactly like a text frame; invalid UTF-8 in either is a frame error, -32700
 * `invalid-utf8`). Answers always go out as text frames ({@link WebSocketMessageWriter}). Frames
 * that arrive before `listen()` are held, because a socket (unlike a paused stream) delivers as
 * soon as it is open.
 */
export class WebSocketMessageReader implements MessageReader {
  #listener: MessageReaderListener | undefined;
  #early: ReaderEvent[] = [];
  #closed = false;
  #lastError: Error | undefined;

  readonly #socket: WebSocket;

  constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', this.#onMessage);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
  }

  /** Delivers held frames, then live ones. */
  listen(listener: MessageReaderListener): void {
    if (this.#listener) throw new Error('WebSocketMessageReader.listen() was already called');
    this.#listener = listener;
    for (const event of this.#early.splice(0)) this.#deliver(event);
  }

  /** Stops reading the socket (the peer's sends block once TCP's window fills). */
  pause(): void {
    if (!this.#closed) this.#socket.pause();
  }

  /** Reads the socket again. */
  resume(): void {
    if (!this.#closed) this.#socket.resume();
  }

  /** Stops delivering; the socket itself is closed by the writer. */
  dispose(): void {
    this.#closed = true;
    this.#socket.off('message', this.#onMessage);
    this.#socket.off('close', this.#onClose);
  }

  // A binary frame is read like a text frame (browser clients such as `use-acp` send every message
  // as one): its bytes must be valid UTF-8, or it is refused with -32700 like a text frame.
  readonly #onMessage = (data: RawData, _isBinary: boolean): void => {
    const decoded = decodeStrict(toBytes(data));
    this.#emit(
      decoded.ok ? { type: 'message', text: decoded.text } : { type: 'frame-error', error: decoded.error },
    );
  };

  readonly #onError = (error: Error): void => {
    this.#lastError = error;
  };

  readonly #onClose = (code: number, reason: Buffer): void => {
    const normal = code === 1000 || code === 1005;
    const why = reason.length > 0 ? `: ${reason.toString('utf8')}` : '';
    const detail = this.#lastError ? ` (${this.#lastError.message})` : '';
    this.#emit({
      type: 'close',
      reason: normal ? undefined : new Error(`websocket closed with code ${code}${why}${detail}`),
    });
  };

  #emit(event: ReaderEvent): void {
    if (this.#listener) this.#deliver(event);
    else this.#early.push(event);
  }

  #deliver(event: ReaderEvent): void {
    if (this.#closed || !this.#listener) return;
    if (event.type === 'message') this.#listener.onMessage(event.text);
    else if (event.type === 'frame-error') this.#listener.onFrameError(event.error);
    else {
      this.#closed = true;
      this.#listener.onClose(event.reason);
    }
  }
}

/**
 * Sends each message as one text frame. A write resolves when `ws` has handed the frame to the
 * socket, so the connection's queued-bytes count covers what `ws` still buffers.
 */
export class WebSocketMessageWriter implements MessageWriter {
  readonly #socket: WebSocket;
  readonly #maxBuffered: number;

  constructor(socket: WebSocket, maxBufferedBytes = DEFAULT_MAX_WEBSOCKET_BUFFERED_BYTES) {
    this.#socket = socket;
    this.#maxBuffered = maxBufferedBytes;
  }

  /** Sends one text frame, or closes the socket (1008) when its peer left more than the bound unread. */
  write(json: string): Promise<void> {
    if (this.#socket.readyState !== WebSocket.OPEN) return Promise.reject(new Error('websocket is not open'));
    const buffered = this.#socket.bufferedAmount;
    if (buffered > this.#maxBuffered) {
      const reason = `peer not reading: ${buffered} bytes unsent (limit ${this.#maxBuffered})`;
      this.abort(reason);
      return Promise.reject(new Error(`websocket closed: ${reason}`));
    }
    return new Promise((resolve, reject) => {
      this.#socket.send(json, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Closes the socket with code 1008 and `reason` (cut to the 123 bytes a close frame holds). The
   * peer sees the frame after what it has not read yet; one that never reads is cut off by `ws`'s
   * closing timeout.
   */
  abort(reason: string): void {
    if (this.#socket.readyState === WebSocket.OPEN)
      this.#socket.close(WEBSOCKET_BOUND_CLOSE_CODE, closeReason(reason));
  }

  /** Closes the socket normally (code 1000) and resolves once it is closed. */
  close(): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.close(1000);
    });
  }
}

/** Wraps an open `ws` socket as a transport. */
export function webSocketTransport(
  socket: WebSocket,
  options: Pick<WebSocketTransportOptions, 'maxBufferedBytes'> = {},
): Transport {
  return {
    reader: new WebSocketMessageReader(socket),
    writer: new WebSocketMessageWriter(socket, options.maxBufferedBytes),
  };
}
