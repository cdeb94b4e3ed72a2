import type { MessageReader, MessageReaderListener, MessageWriter, Transport } from '../rpc/index.js';
import { allowAbortListenerPerRequest } from './abort-listeners.js';
import { type CookieStore, MemoryCookieStore } from './cookie-jar.js';
import { negotiatedVersion, PROTOCOL_VERSION_HEADER } from './protocol-version-header.js';
import { retryLaterMs, waitUnlessAborted } from './retry-later.js';
import { fetchExchange, type OwnedExchange, type ShortAnswer, type StreamAnswer } from './short-exchange.js';

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
 * transport with an {@link HttpStatusError} (or the network error). Every request goes through the
 * {@link OwnedExchange} it is given (`fetch` in a browser, `node:http` in Node).
 *
 * Each event of a stream is passed on as the text it arrived as; it is parsed here only when it has
 * a member named `id` (an answer that may name a new session, or a request of the agent's), which
 * leaves the notifications, nearly all of a stream, to be parsed once, by the connection.
 */
class HttpClientTransport implements Transport {
  readonly reader: MessageReader;
  readonly writer: MessageWriter;

  readonly #url: string;
  readonly #options: HttpClientOptions;
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
  /**
   * The IDs (as JSON) of this client's requests not answered yet: only an answer to one of them
   * may name a session whose stream is then opened, so a server sending answers nobody asked for
   * cannot make the client open streams without end.
   */
  readonly #asked = new Set<string>();
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #closeReason: Error | undefined;

  constructor(url: string, options: HttpClientOptions, exchange: OwnedExchange) {
    this.#url = url;
    this.#options = options;
    this.#exchange = exchange;
    this.#cookies = options.cookies ?? new MemoryCookieStore();
    this.#limit = options.maxMessageBytes ?? 8 * 1024 * 1024;
    // Every session's stream and every request in flight listens to it: more than ten is usual.
    allowAbortListenerPerRequest(this.#abort.signal);
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

  /** `open()` again while the server answers "retry later" (see retry-later.ts), a bounded number of times. */
  async #retryingLater(open: () => Promise<StreamAnswer>): Promise<StreamAnswer> {
    for (let attempt = 1; ; attempt += 1) {
      const answer = await open();
      const wait = retryLaterMs(answer.status, answer.header('retry-after'), attempt);
      if (wait === undefined || this.#closed) return answer;
      answer.discard();
      await waitUnlessAborted(wait, this.#abort.signal);
    }
  }

  /** A stream's GET, through the exchange. */
  async #stream(headers: Record<string, string>): Promise<StreamAnswer> {
    const answer = await this.#exchange.stream({
      url: this.#url,
      headers: this.#headers(headers),
      signal: this.#abort.signal,
    });
    const setCookie = answer.setCookies();
    if (setCookie.length > 0) this.#cookies.store(setCookie);
    return answer;
  }

  /** A POST (initialize included) or the DELETE, through the exchange. */
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
    const response = await this.#short('POST', { 'Content-Type': 'application/json' }, json);
    if (response.status !== 200) {
      throw new HttpStatusError('POST initialize', response.status, (await response.text(1024)).trim());
    }
    const id = response.header('Acp-Connection-Id');
    if (!id) {
      response.discard();
      throw new Error('ACP over HTTP: the initialize answer has no Acp-Connection-Id header');
    }
    const answer = await response.text(this.#limit);
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
    const opened = this.#retryingLater(() => this.#stream(headers)).then(async (answer) => {
      if (answer.status !== 200) {
        throw new HttpStatusError(what, answer.status, (await answer.text(1024)).trim());
      }
      void this.#follow(answer, sessionId, what);
    });
    if (sessionId !== undefined) this.#streams.set(sessionId, opened);
    opened.catch((error: unknown) => {
      if (!this.#closed) void this.#close(error instanceof Error ? error : new Error(String(error)));
    });
    return opened;
  }

  async #follow(answer: StreamAnswer, sessionId: string | undefined, what: string): Promise<void> {
    try {
      await answer.follow(this.#limit, (data) => this.#arrived(data, sessionId));
      if (!this.#closed) void this.#close(new Error(`ACP over HTTP: the server ended the ${what} stream`));
    } catch (error) {
      if (!this.#closed) {
        const reason = error instanceof Error ? error.message : String(error);
        void this.#close(new Error(`ACP over HTTP: the ${what} stream failed: ${reason}`));
      }
    }
  }

  /** An event of the stream of `sessionId` (or of the connection's): noted if it matters here, passed on. */
  #arrived(data: string, sessionId: string | undefined): void {
    // A member named `id` is spelt `"id"` in the text unless its name is escaped (`\u0069d`); a
    // string's own quotes are always escaped, so a chunk's text never looks like one.
    if (data.includes('"id"') || data.includes('\\u')) {
      const message = parse(data);
      if (message) {
        const answered = message.method === undefined && this.#asked.delete(JSON.stringify(message.id));
        const created = answered ? sessionIdIn(message.result) : undefined;
        if (created !== undefined && !this.#streams.has(created))
          void this.#openStream(created).catch(() => {});
        if (sessionId !== undefined && message.method !== undefined && message.id !== undefined) {
          this.#requestSessions.set(JSON.stringify(message.id), sessionId);
        }
      }
    }
    this.#deliver(data);
  }

  async #post(json: string, message: Message | undefined, connectionId: string): Promise<void> {
    let sessionId: string | undefined;
    const isRequest = message?.method !== undefined && message.id !== undefined;
    if (isRequest) this.#asked.add(JSON.stringify(message.id));
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
      const wait = retryLaterMs(answer.status, answer.header('retry-after'), attempt);
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
    if (FATAL.has(answer.status) || !isRequest) throw error;
    // Only this request failed: answer it here, the connection carries on.
    this.#asked.delete(JSON.stringify(message.id));
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
  return new HttpClientTransport(url, options, fetchExchange(fetchOf(options)));
}

/**
 * The `fetch` of `options` (default `globalThis.fetch`), bound to the global object.
 * @internal
 */
export function fetchOf(options: HttpClientOptions): typeof fetch {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function')
    throw new Error('connectHttp needs fetch (globalThis.fetch or options.fetch)');
  return fetchImpl.bind(globalThis);
}

/**
 * The transport {@link connectHttp} makes, with every request sent through `exchange`. The Node
 * entry point passes a `node:http` exchange here.
 * @internal
 */
export function httpClientTransport(
  url: string,
  options: HttpClientOptions,
  exchange: OwnedExchange,
): Transport {
  return new HttpClientTransport(url, options, exchange);
}
