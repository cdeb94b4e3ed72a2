import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { HttpRequest, HttpResponse } from './http-endpoint.js';

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A web `Request` as the endpoint reads a request: its body as a Node stream, its headers with
 * lower-case names (a repeated header is joined with `, `, as `Headers` does), and `remoteAddress`
 * standing in for the socket's (the per-address limits count by it).
 */
export function toHttpRequest(request: Request, remoteAddress: string | undefined): HttpRequest {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of request.headers) headers[name] = value;
  const body =
    request.body === null
      ? Readable.from([])
      : Readable.fromWeb(request.body as unknown as NodeReadableStream<Uint8Array>);
  const url = new URL(request.url);
  return Object.assign(body, {
    method: request.method,
    url: `${url.pathname}${url.search}`,
    httpVersionMajor: 1,
    headers,
    socket: { remoteAddress },
  });
}

/**
 * The endpoint's response side for a fetch-style handler: the status and headers of `writeHead`
 * become a `Response`. A response ended without a `write` (every answer but an SSE stream) gets its
 * body whole; the first `write` turns it into a streamed body, whose bytes not yet pulled by the
 * reader are its `writableLength` (what bounds an SSE stream). The reader cancelling the body, or
 * the request's signal aborting, is the `close` of a Node response.
 */
export class FetchExchange implements HttpResponse {
  readonly response: Promise<Response>;
  #resolve!: (response: Response) => void;
  #status = 0;
  #headers: Record<string, string> = {};
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #ended = false;
  #closed = false;
  #settled = false;
  readonly #onClose = new Set<() => void>();
  readonly #encoder = new TextEncoder();

  constructor(signal?: AbortSignal) {
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    signal?.addEventListener('abort', () => this.#close(), { once: true });
  }

  get headersSent(): boolean {
    return this.#status !== 0;
  }

  get writableLength(): number {
    const desired = this.#controller?.desiredSize ?? 0;
    return desired === null ? 0 : Math.max(0, -desired);
  }

  get destroyed(): boolean {
    return this.#closed;
  }

  writeHead(status: number, headers: Record<string, string> = {}): this {
    this.#status = status;
    const kept: Record<string, string> = {};
    // A connection-level header is the server's business, not the handler's.
    for (const [name, value] of Object.entries(headers))
      if (name.toLowerCase() !== 'connection') kept[name] = value;
    this.#headers = kept;
    return this;
  }

  write(chunk: string): boolean {
    if (this.#closed || this.#ended) return false;
    if (this.#controller === undefined) this.#stream();
    this.#controller?.enqueue(this.#encoder.encode(chunk));
    return this.writableLength === 0;
  }

  end(chunk?: string): this {
    if (this.#ended) return this;
    this.#ended = true;
    if (this.#controller === undefined) {
      this.#settle(new Response(NO_BODY.has(this.#status) ? null : (chunk ?? null), this.#init()));
    } else {
      if (chunk !== undefined && !this.#closed) this.#controller.enqueue(this.#encoder.encode(chunk));
      if (!this.#closed) this.#controller.close();
    }
    this.#close();
    return this;
  }

  once(_event: 'close', listener: () => void): this {
    if (this.#closed) queueMicrotask(listener);
    else this.#onClose.add(listener);
    return this;
  }

  off(_event: 'close', listener: () => void): this {
    this.#onClose.delete(listener);
    return this;
  }

  /** Answers a request the endpoint left unanswered (its client went away mid-body): 400, empty. */
  settleUnanswered(): void {
    if (!this.#settled) this.#settle(new Response(null, { status: 400 }));
  }

  #init(): ResponseInit {
    return { status: this.#status || 200, headers: this.#headers };
  }

  #stream(): void {
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#close(),
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    this.#settle(new Response(body, this.#init()));
  }

  #settle(response: Response): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(response);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const listeners = [...this.#onClose];
    this.#onClose.clear();
    for (const listener of listeners) listener();
  }
}
