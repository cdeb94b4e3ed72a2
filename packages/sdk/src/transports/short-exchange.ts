/**
 * The short requests of the Streamable HTTP client (every `POST` after `initialize`, and the final
 * `DELETE`): a status, a few headers and at most a short error body. They are the hot path of a
 * remote client (one per prompt, per permission answer, per cancel), so how they are sent is
 * swappable: over `fetch` anywhere ({@link fetchExchange}), or over `node:http` keep-alive
 * sockets in Node (`node-http-exchange.ts`), which costs a quarter of `fetch`'s CPU per request.
 */

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
  /** The `Retry-After` header, if any. */
  retryAfter(): string | undefined;
  /** The body as text, cut at `limit` characters; reading it ends the response. */
  text(limit: number): Promise<string>;
  /** Drops the body unread. */
  discard(): void;
}

/** A transport-owned way to send short requests; `close()` releases what it holds (e.g. idle keep-alive sockets). */
export interface OwnedExchange {
  send(request: ShortRequest): Promise<ShortAnswer>;
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

/**
 * Short requests over `fetch` (browser-safe). Requests are sent with `credentials: 'include'`,
 * so in a browser the browser's cookies travel too.
 */
export function fetchExchange(fetchImpl: typeof fetch): OwnedExchange {
  return {
    send: async ({ method, url, headers, body, signal }) => {
      const response = await fetchImpl(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        credentials: 'include',
        ...(signal === undefined ? {} : { signal }),
      });
      return {
        status: response.status,
        setCookies: () => response.headers.getSetCookie?.() ?? [],
        retryAfter: () => response.headers.get('retry-after') ?? undefined,
        text: (limit) => responseText(response, limit),
        discard: () => void response.body?.cancel().catch(() => undefined),
      };
    },
    close: () => {},
  };
}
