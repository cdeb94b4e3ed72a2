import type { MessageReader, MessageReaderListener, MessageWriter, Transport } from '../rpc/index.js';
import { type CookieStore, MemoryCookieStore } from './cookie-jar.js';
import { negotiatedVersion, PROTOCOL_VERSION_HEADER } from './protocol-version-header.js';
import { readSseData } from './sse-parser.js';
import { retryLaterMs, waitUnlessAborted } from './retry-later.js';
import { fetchExchange, type OwnedExchange, responseText, type ShortAnswer } from './short-exchange.js';

/** Options for {@link connectHttp}. */
export interface HttpClientOptions {
  /** The server's connection token, sent as `Authorization: Bearer <token>` on every request. */
  token?: string;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /** Aborting it closes the transport (open streams are cancelled, the connection is deleted). */
  signal?: AbortSignal;
  /**
   * Where the server's cookies are kept (the RFD requires clients to return them). Default: a
   * fresh {@link MemoryCookieStore}; pass one to keep affinity across a reconnect. In a browser the
   * browser keeps them (requests are sent with `credentials: 'include'`).
   */
  cookies?: CookieStore;
  /** Largest accepted message (an SSE event, the initialize answer) in bytes. Default 8 MiB. */
  maxMessageBytes?: number;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/** The server answered a request of the Streamable HTTP transport with an HTTP error status. */
export class HttpStatusError extends Error {
  constructor(
    /** What was being done, e.g. `POST session/prompt`. */
    readonly operation: string,
    /** The HTTP status. */
    readonly status: number,
    /** The start of the response body (the server's reason). */
    readonly body: string,
  ) {
    super(`ACP over HTTP: ${operation} answered HTTP ${status}${body ? `: ${body}` : ''}`);
    this.name = 'HttpStatusError';
  }
}

/** Statuses after which the connection is unusable: credentials refused, or the connection is gone. */
const FATAL = new Set([401, 403, 404, 410]);

type Message = { id?: unknown; method?: unknown; params?: unknown; result?: unknown };

const sessionIdIn = (value: unknown): string | undefined => {
  if (value === null || typeof value !== 'object') return undefined;
  const id = (value as { sessionId?: unknown }).sessionId;
  return typeof id === 'string' ? id : undefined;
};

const parse = (json: string): Message | undefined => {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Message)
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * One Streamable HTTP connection on the client side (the upstream RFD's profile): the first message
 * (`initialize`) is POSTed and answered with `200` and the `Acp-Connection-Id`; then a GET holds the
 * connection-scoped SSE stream, a GET per session holds that session's (opened as soon as a session
 * ID appears in an answer, and before the first POST naming it), and every other message is POSTed
 * (`202`) with `Acp-Connection-Id` and, when it concerns a session, `Acp-Session-Id`.
 *
 * A stream's GET or a POST the server answers 503 or 429 with `Retry-After` (its limits refused it
 * unread) is sent again after that wait, up to six tries in all (retry-later.ts).
 * A request the server refuses with an HTTP status is answered locally with a JSON-RPC error whose
 * message names the status; 401, 403, 404 and 410, a network error, or the end of a stream close the
 * transport with an {@link HttpStatusError} (or the network error). Streams are read over `fetch`;
 * the short requests go through the {@link OwnedExchange} it is given (`fetch` in a browser).
 */
class HttpClientTransport implements Transport {
  readonly reader: MessageReader;
  readonly writer: MessageWriter;

  readonly #url: string;
  readonly #options: HttpClientOptions;
  readonly #fetch: typeof fetch;
  readonly #exchange: OwnedExchange;
  readonly #cookies: CookieStore;
  readonly #limit: number;
  readonly #abort = new AbortController();
  #listener: MessageReaderListener | undefined;
  readonly #early: string[] = [];
  #connectionId: string | undefined;
  /** The version `initialize` negotiated, sent in `Acp-Protocol-Version` on every later request. */
  #protocolVersion: string | undefined;
  /** Session streams opened (or opening): resolves once the GET was answered. */
  readonly #streams = new Map<string, Promise<void>>();
  /** Which session's stream each server→client request arrived on (its answer goes back with it). */
  readonly #requestSessions = new Map<string, string>();
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #closeReason: Error | undefined;

  constructor(url: string, options: HttpClientOptions, exchange: (fetchImpl: typeof fetch) => OwnedExchange) {
    this.#url = url;
    this.#options = options;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function')
      throw new Error('connectHttp needs fetch (globalThis.fetch or options.fetch)');
    this.#fetch = fetchImpl.bind(globalThis);
    this.#exchange = exchange(this.#fetch);
    this.#cookies = options.cookies ?? new MemoryCookieStore();
    this.#limit = options.maxMessageBytes ?? 8 * 1024 * 1024;
    options.signal?.addEventListener('abort', () => void this.#close(), { once: true });
    this.reader = {
      listen: (listener) => {
        if (this.#listener) throw new Error('HTTP client reader.listen() was already called');
        this.#listener = listener;
        for (const text of this.#early.splice(0)) listener.onMessage(text);
        if (this.#closed) listener.onClose(this.#closeReason);
      },
      dispose: () => {
        this.#listener = undefined;
      },
    };
    this.writer = {
      write: (json) => {
        const next = this.#queue.then(() => this.#send(json));
        this.#queue = next.catch(() => undefined);
        return next;
      },
      close: () => this.#close(),
    };
  }

  #deliver(text: string): void {
    if (this.#closed) return;
    if (this.#listener) this.#listener.onMessage(text);
    else this.#early.push(text);
  }

  /** Ends the transport with `reason` (an error) or normally; deletes the connection on the server. */
  async #close(reason?: Error): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeReason = reason;
    this.#abort.abort();
    this.#listener?.onClose(reason);
    const id = this.#connectionId;
    if (id !== undefined) {
      await this.#short('DELETE', { 'Acp-Connection-Id': id }, undefined, false)
        .then((answer) => answer.discard())
        .catch(() => undefined);
    }
    this.#exchange.close();
  }

  /** `headers` with the ones every request carries: extra headers, version, token, cookies. */
  #headers(headers: Record<string, string>): Record<string, string> {
    const all: Record<string, string> = { ...this.#options.headers, ...headers };
    if (this.#protocolVersion !== undefined) all[PROTOCOL_VERSION_HEADER] = this.#protocolVersion;
    if (this.#options.token !== undefined) all.Authorization = `Bearer ${this.#options.token}`;
    const cookie = this.#cookies.header();
    if (cookie !== undefined) all.Cookie = cookie;
    return all;
  }

  /** A stream's GET, or the initialize POST (its answer's body is read as a stream), over fetch. */
  async #request(
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Response> {
    const response = await this.#fetch(this.#url, {
      method,
      headers: this.#headers(headers),
      ...(body === undefined ? {} : { body }),
      credentials: 'include',
      signal: this.#abort.signal,
    });
    const setCookie = response.headers.getSetCookie?.() ?? [];
    if (setCookie.length > 0) this.#cookies.store(setCookie);
    return response;
  }

  /** `request()` again while the server answers "retry later" (see retry-later.ts), a bounded number of times. */
  async #retryingLater(request: () => Promise<Response>): Promise<Response> {
    for (let attempt = 1; ; attempt += 1) {
      const response = await request();
      const wait = retryLaterMs(response.status, response.headers.get('retry-after'), attempt);
      if (wait === undefined || this.#closed) return response;
      await response.body?.cancel().catch(() => undefined);
      await waitUnlessAborted(wait, this.#abort.signal);
    }
  }

  /** A POST after initialize or the DELETE, through the exchange. */
  async #short(
    method: 'POST' | 'DELETE',
    headers: Record<string, string>,
    body: string | undefined,
    abortable = true,
  ): Promise<ShortAnswer> {
    const answer = await this.#exchange.send({
      method,
      url: this.#url,
      headers: this.#headers(headers),
      ...(body === undefined ? {} : { body }),
      ...(abortable ? { signal: this.#abort.signal } : {}),
    });
    const setCookie = answer.setCookies();
    if (setCookie.length > 0) this.#cookies.store(setCookie);
    return answer;
  }

  async #send(json: string): Promise<void> {
    if (this.#closed) throw this.#closeReason ?? new Error('ACP over HTTP: the transport is closed');
    const message = parse(json);
    try {
      if (this.#connectionId === undefined) return await this.#initialize(json, message);
      await this.#post(json, message, this.#connectionId);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (!this.#closed) void this.#close(failure);
      throw failure;
    }
  }

  async #initialize(json: string, message: Message | undefined): Promise<void> {
    if (message?.method !== 'initialize') {
      throw new Error('ACP over HTTP: the first message must be the initialize request');
    }
    const response = await this.#request('POST', { 'Content-Type': 'application/json' }, json);
    if (response.status !== 200) {
      throw new HttpStatusError(
        'POST initialize',
        response.status,
        (await responseText(response, 1024)).trim(),
      );
    }
    const id = response.headers.get('Acp-Connection-Id');
    if (!id) throw new Error('ACP over HTTP: the initialize answer has no Acp-Connection-Id header');
    const answer = await responseText(response, this.#limit);
    this.#connectionId = id;
    this.#protocolVersion = negotiatedVersion(answer);
    await this.#openStream(undefined);
    this.#deliver(answer);
  }

  /** Opens the connection-scoped stream or a session's; resolves once the GET was answered. */
  #openStream(sessionId: string | undefined): Promise<void> {
    if (sessionId !== undefined) {
      const open = this.#streams.get(sessionId);
      if (open) return open;
    }
    const headers: Record<string, string> = {
      Accept: 'text/event-stream',
      'Acp-Connection-Id': this.#connectionId!,
      ...(sessionId === undefined ? {} : { 'Acp-Session-Id': sessionId }),
    };
    const what = sessionId === undefined ? 'GET (connection stream)' : `GET (stream of session ${sessionId})`;
    const opened = this.#retryingLater(() => this.#request('GET', headers, undefined)).then(
      async (response) => {
        if (response.status !== 200 || !response.body) {
          throw new HttpStatusError(what, response.status, (await responseText(response, 1024)).trim());
        }
        void this.#follow(response.body, sessionId, what);
      },
    );
    if (sessionId !== undefined) this.#streams.set(sessionId, opened);
    opened.catch((error: unknown) => {
      if (!this.#closed) void this.#close(error instanceof Error ? error : new Error(String(error)));
    });
    return opened;
  }

  async #follow(
    body: ReadableStream<Uint8Array>,
    sessionId: string | undefined,
    what: string,
  ): Promise<void> {
    try {
      for await (const data of readSseData(body, this.#limit)) {
        const message = parse(data);
        if (message) {
          const created = message.method === undefined ? sessionIdIn(message.result) : undefined;
          if (created !== undefined && !this.#streams.has(created))
            void this.#openStream(created).catch(() => {});
          if (sessionId !== undefined && message.method !== undefined && message.id !== undefined) {
            this.#requestSessions.set(JSON.stringify(message.id), sessionId);
          }
        }
        this.#deliver(data);
      }
      if (!this.#closed) void this.#close(new Error(`ACP over HTTP: the server ended the ${what} stream`));
    } catch (error) {
      if (!this.#closed) {
        const reason = error instanceof Error ? error.message : String(error);
        void this.#close(new Error(`ACP over HTTP: the ${what} stream failed: ${reason}`));
      }
    }
  }

  async #post(json: string, message: Message | undefined, connectionId: string): Promise<void> {
    let sessionId: string | undefined;
    if (message?.method !== undefined) sessionId = sessionIdIn(message.params);
    else if (message?.id !== undefined) {
      const key = JSON.stringify(message.id);
      sessionId = this.#requestSessions.get(key);
      this.#requestSessions.delete(key);
    }
    if (sessionId !== undefined) await this.#openStream(sessionId);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'Acp-Connection-Id': connectionId,
      ...(sessionId === undefined ? {} : { 'Acp-Session-Id': sessionId }),
    };
    const what = `POST ${typeof message?.method === 'string' ? message.method : 'answer'}`;
    let answer = await this.#short('POST', headers, json);
    for (let attempt = 1; ; attempt += 1) {
      const wait = retryLaterMs(answer.status, answer.retryAfter(), attempt);
      if (wait === undefined || this.#closed) break;
      answer.discard();
      await waitUnlessAborted(wait, this.#abort.signal);
      answer = await this.#short('POST', headers, json);
    }
    if (answer.status === 202 || answer.status === 200) {
      answer.discard();
      return;
    }
    const error = new HttpStatusError(what, answer.status, (await answer.text(1024)).trim());
    const isRequest = message?.method !== undefined && message.id !== undefined;
    if (FATAL.has(answer.status) || !isRequest) throw error;
    // Only this request failed: answer it here, the connection carries on.
    this.#deliver(
      JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32603, message: error.message, data: { status: error.status, body: error.body } },
      }),
    );
  }
}

/**
 * Connects to an ACP endpoint over Streamable HTTP (`http://` or `https://`, e.g.
 * `http://127.0.0.1:8080/acp`) and resolves with a {@link Transport} a `Client` uses unchanged.
 * Nothing is sent until the client's `initialize`; a refusal then (401 token, 403 origin, 429/503
 * limits) fails that request and closes the transport with an {@link HttpStatusError}.
 * One transport is one connection: to survive a drop, give `connectClient` (in `client/`) a factory
 * such as `() => connectHttp(url, { token, cookies })`; it reconnects and resumes every session
 * with replay into the same store.
 */
export async function connectHttp(url: string, options: HttpClientOptions = {}): Promise<Transport> {
  return new HttpClientTransport(url, options, fetchExchange);
}

/**
 * The transport {@link connectHttp} makes, with its short requests sent through `exchange` (given
 * the `fetch` in use). The Node entry point passes a `node:http` exchange here.
 * @internal
 */
export function httpClientTransport(
  url: string,
  options: HttpClientOptions,
  exchange: (fetchImpl: typeof fetch) => OwnedExchange,
): Transport {
  return new HttpClientTransport(url, options, exchange);
}
