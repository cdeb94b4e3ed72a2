/**
 * A `fetch` for the Streamable HTTP clients of the many-connections run (ours and the official
 * one both take a `fetch` option) that counts the SSE session streams the server has answered: a
 * `GET` carrying `Acp-Session-Id` that got `200`. The run waits for exactly that count, so it
 * measures the agent only once every stream it opened is held by the server.
 */
import { ChunkCounter } from './bench-client.js';

/** A counting `fetch` and the count of session streams opened through it. */
export interface WatchedFetch {
  fetch: typeof fetch;
  /** Resolves once `n` session streams have been answered through this fetch in all. */
  sessionStreams(n: number): Promise<void>;
}

export function watchedFetch(): WatchedFetch {
  const opened = new ChunkCounter();
  const watching: typeof fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (method === 'GET' && headers.has('Acp-Session-Id') && response.status === 200) opened.add();
    return response;
  };
  return { fetch: watching, sessionStreams: (n) => opened.until(n) };
}
