/**
 * `connectHttp` for Node: the same transport as the browser-safe one in `http-client.ts`, with
 * every request (the POSTs, the SSE streams' GETs, the closing DELETE) sent over `node:http` /
 * `node:https` instead of `fetch`, unless the caller passes its own `fetch` (then everything goes
 * through it, as in a browser).
 */
import type { Transport } from '../rpc/index.js';
import { fetchOf, type HttpClientOptions, httpClientTransport } from './http-client.js';
import { nodeHttpExchange } from './node-http-exchange.js';
import { fetchExchange } from './short-exchange.js';

/**
 * Connects to an ACP endpoint over Streamable HTTP (`http://` or `https://`, e.g.
 * `http://127.0.0.1:8080/acp`) and resolves with a {@link Transport} a `Client` uses unchanged.
 * Nothing is sent until the client's `initialize`; a refusal then (401 token, 403 origin, 429/503
 * limits) fails that request and closes the transport with an `HttpStatusError`.
 *
 * In Node, the requests a turn makes (prompts, answers, cancels) use `node:http` keep-alive
 * sockets, and each SSE stream a `node:http` socket of its own; with `options.fetch`, every request
 * uses that `fetch`. `node:http` speaks HTTP/1.1, as Node’s own `fetch` does: for HTTP/2, pass an
 * h2-capable `fetch`.
 * One transport is one connection: to survive a drop, give `connectClient` (in `client/`) a factory
 * such as `() => connectHttp(url, { token, cookies })`; it reconnects and resumes every session
 * with replay into the same store.
 */
export async function connectHttp(url: string, options: HttpClientOptions = {}): Promise<Transport> {
  return httpClientTransport(
    url,
    options,
    options.fetch === undefined ? nodeHttpExchange(url) : fetchExchange(fetchOf(options)),
  );
}
