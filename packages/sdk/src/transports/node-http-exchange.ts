/**
 * Short requests of the Streamable HTTP client over `node:http` / `node:https` with keep-alive
 * sockets (Node only; the browser entry never imports this file). `fetch` in Node allocates a
 * Request, a Response, Headers and web streams per call; a plain `http.request` on a kept-alive
 * socket does a fraction of that work, and a prompt's receipt waits on one such request.
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { OwnedExchange, ShortAnswer, ShortRequest } from './short-exchange.js';

/** How long a kept-alive socket may stay idle when the server does not say (its hint, less a second, when it does). */
const IDLE_SOCKET_MS = 30_000;

function answerOf(response: IncomingMessage): ShortAnswer {
  // A reset after the head (a server answering 413 and closing while the body is still going out)
  // must not become an uncaught stream error; `text()` reports it, `discard()` ignores it.
  let failure: Error | undefined;
  response.on('error', (error) => {
    failure = error;
  });
  return {
    status: response.statusCode ?? 0,
    setCookies: () => response.headers['set-cookie'] ?? [],
    retryAfter: () => {
      const value = response.headers['retry-after'];
      return Array.isArray(value) ? value[0] : value;
    },
    text: (limit) =>
      new Promise((resolve, reject) => {
        if (failure !== undefined) return reject(failure);
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => {
          text += piece;
          if (text.length > limit) {
            response.destroy();
            resolve(text.slice(0, limit));
          }
        });
        response.once('end', () => resolve(text));
        response.once('error', reject);
        response.once('close', () => resolve(text));
      }),
    discard: () => void response.resume(),
  };
}

/**
 * An exchange owning one keep-alive agent (a few sockets to the one server of a connection);
 * `close()` destroys its sockets.
 */
export function nodeHttpExchange(url: string): OwnedExchange {
  const secure = new URL(url).protocol === 'https:';
  // With a `timeout`, Node's agent also honours the server's `Keep-Alive: timeout=N` and drops an
  // idle socket a second before the server would; without one it ignores the hint and may send a
  // request on a socket the server is closing (ECONNRESET, "socket hang up").
  const options = { keepAlive: true, maxSockets: 8, timeout: IDLE_SOCKET_MS };
  const agent = secure ? new HttpsAgent(options) : new HttpAgent(options);
  const request = secure ? httpsRequest : httpRequest;
  return {
    // An aborted signal fails the request with an AbortError, already aborted or not.
    send: ({ method, url: target, headers, body, signal }: ShortRequest) =>
      new Promise<ShortAnswer>((resolve, reject) => {
        const all: Record<string, string | number> = { ...headers };
        if (body !== undefined) all['Content-Length'] = Buffer.byteLength(body);
        const outgoing = request(target, {
          method,
          headers: all,
          agent,
          ...(signal === undefined ? {} : { signal }),
        });
        outgoing.once('response', (response) => {
          // A server may answer before it read the body (413) and stop reading: the body then never
          // finishes, and the socket would hold one of the agent's slots for good. Once the answer
          // is over, such a request is ended here; its socket is not reused.
          const release = () => {
            if (!outgoing.writableFinished) outgoing.destroy();
          };
          response.once('end', release);
          response.once('close', release);
          resolve(answerOf(response));
        });
        // `on`, not `once`: the socket may fail again after the answer arrived (a reset while the
        // body still streams), and an error with no listener would be thrown from the socket.
        outgoing.on('error', reject);
        outgoing.end(body);
      }),
    close: () => agent.destroy(),
  };
}
