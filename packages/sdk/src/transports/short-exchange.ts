/**
 * How the Streamable HTTP client reaches its server: the short requests (every `POST`, and the
 * final `DELETE`: a status, a few headers and at most a short error body or the initialize answer)
 * and the SSE streams' GETs, whose bodies are read event by event. Both are the hot path of a
 * remote client (a POST per prompt, per permission answer, per cancel; an event per streamed
 * chunk), so how they travel is swappable: over `fetch` anywhere ({@link fetchExchange}), or over
 * `node:http` sockets in Node (`node-http-exchange.ts`), which costs a fraction of `fetch`'s CPU
 * per request and per event.
 */
import { readSseData } from './sse-parser.js';

/** One short request. */
export interface ShortRequest {
  method: 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborting it fails the request (the transport aborts it when it closes). */
  signal?: AbortSignal;
}

/** The answer to a {@link ShortRequest}. */
export interface ShortAnswer {
  status: number;
  /** Every `Set-Cookie` header, in order. */
  setCookies(): string[];
  /** A header by its name (any case; e.g. `Retry-After`); a repeated one gives its first value. */
  header(name: string): string | undefined;
  /** The body as text, cut at `limit` characters; reading it ends the response. */
  text(limit: number): Promise<string>;
  /** Drops the body unread. */
  discard(): void;
}

/** A GET of an SSE stream (the connection's or a session's). */
export interface StreamRequest {
  url: string;
  headers: Record<string, string>;
  /** Aborting it ends the request and its stream (the transport aborts it when it closes). */
  signal: AbortSignal;
}

/** The answer to a {@link StreamRequest}: its head, and its body read as SSE. */
export interface StreamAnswer extends ShortAnswer {
  /**
   * Reads the body as SSE and calls `onData` with each event's data, in order. Resolves when the
   * server ends the body; rejects when it fails, is cut, or an event passes `maxEventBytes`
   * (`SseEventTooLargeError`), or when `onData` throws.
   */
  follow(maxEventBytes: number, onData: (data: string) => void): Promise<void>;
}

/**
 * A transport-owned way to send short requests and open streams; `close()` releases what it holds
 * (e.g. idle keep-alive sockets).
 */
export interface OwnedExchange {
  send(request: ShortRequest): Promise<ShortAnswer>;
  stream(request: StreamRequest): Promise<StreamAnswer>;
  close(): void;
}

/** Reads a web response body as text, up to `limit` characters, then cancels the rest. */
export async function responseText(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
      if (text.length > limit) return text.slice(0, limit);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** The answer of a web `Response` (its body read at most once). */
function webAnswer(response: Response): StreamAnswer {
  return {
    status: response.status,
    setCookies: () => response.headers.getSetCookie?.() ?? [],
    header: (name) => response.headers.get(name) ?? undefined,
    text: (limit) => responseText(response, limit),
    discard: () => void response.body?.cancel().catch(() => undefined),
    follow: async (maxEventBytes, onData) => {
      if (!response.body) throw new Error('the answer has no body');
      for await (const data of readSseData(response.body, maxEventBytes)) onData(data);
    },
  };
}

/**
 * Requests over `fetch` (browser-safe). Requests are sent with `credentials: 'include'`, so in a
 * browser the browser's cookies travel too.
 */
export function fetchExchange(fetchImpl: typeof fetch): OwnedExchange {
  return {
    send: async ({ method, url, headers, body, signal }) =>
      webAnswer(
        await fetchImpl(url, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          credentials: 'include',
          ...(signal === undefined ? {} : { signal }),
        }),
      ),
    stream: async ({ url, headers, signal }) =>
      webAnswer(await fetchImpl(url, { method: 'GET', headers, credentials: 'include', signal })),
    close: () => {},
  };
}
