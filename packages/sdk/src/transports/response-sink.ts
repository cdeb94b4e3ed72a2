import type { SseSink } from './sse-outbox.js';

/** The part of a GET's response (HTTP/1.1, HTTP/2 or a fetch exchange) a {@link ResponseSink} uses. */
export interface SinkResponse {
  readonly writableLength: number;
  readonly destroyed: boolean;
  write(chunk: string): boolean;
  end(): unknown;
}

/**
 * What Node's HTTP/1.1 `ServerResponse` adds that lets a sink frame chunks itself: whether the
 * body is chunked, and the socket it owns once it is at the head of its connection's queue.
 */
interface NodeResponseParts {
  readonly chunkedEncoding?: unknown;
  readonly writableEnded?: unknown;
  readonly socket?: {
    readonly writable: boolean;
    readonly writableLength: number;
    write(chunk: string): boolean;
  } | null;
}

/**
 * A GET's response as the SSE sink of its stream (a class: no closures per stream).
 *
 * Once the response's head is on its socket ({@link ResponseSink.headSent}), a Node HTTP/1.1
 * response with a chunked body is written by framing each chunk here and handing it to the socket
 * as one string: one `write` system call per flush. Through `response.write` the same bytes take
 * three buffers, a cork until the next tick and a `writev`; at thousands of streams that was a
 * fifth of the agent's time (issue #42's profile). Every other response (HTTP/2, a fetch
 * exchange, HTTP/1.0, one still queued behind an earlier response on its connection) is written
 * through `response.write`.
 */
export class ResponseSink implements SseSink {
  readonly #response: SinkResponse;
  #socket: NonNullable<NodeResponseParts['socket']> | undefined;

  constructor(response: SinkResponse) {
    this.#response = response;
  }

  /**
   * Called once the response's head and first bytes were written through the response: from now
   * on chunks may go straight to the socket, when nothing the response buffers itself would be
   * overtaken (its `writableLength` is all in its socket).
   */
  headSent(): void {
    const parts = this.#response as SinkResponse & NodeResponseParts;
    const socket = parts.socket;
    if (
      parts.chunkedEncoding === true &&
      parts.writableEnded === false &&
      socket?.writable === true &&
      typeof socket.write === 'function' &&
      this.#response.writableLength === socket.writableLength
    ) {
      this.#socket = socket;
    }
  }

  write(chunk: string, bytes?: number): boolean {
    const socket = this.#socket;
    if (socket === undefined || !socket.writable) return this.#response.write(chunk);
    // The length the outbox counted: the chunk is not flattened and scanned again to count it.
    return socket.write(`${(bytes ?? Buffer.byteLength(chunk)).toString(16)}\r\n${chunk}\r\n`);
  }

  end(): void {
    this.#socket = undefined;
    this.#response.end();
  }

  get writableLength(): number {
    return this.#response.writableLength;
  }

  get destroyed(): boolean {
    return this.#response.destroyed;
  }
}
