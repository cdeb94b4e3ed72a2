/**
 * The Streamable HTTP client's requests over `node:http` / `node:https` (Node only; the browser
 * entry never imports this file). `fetch` in Node allocates a Request, a Response, Headers and
 * web streams per call, and reads a body through web streams: a plain `http.request` on a
 * kept-alive socket does a fraction of that work per short request (a prompt's receipt waits on
 * one), and an `IncomingMessage` read as UTF-8 text does a fraction of it per streamed event.
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type {
  OwnedExchange,
  ShortAnswer,
  ShortRequest,
  StreamAnswer,
  StreamRequest,
} from './short-exchange.js';
import { SseDataDecoder } from './sse-parser.js';

/** How long a kept-alive socket may stay idle when the server does not say (its hint, less a second, when it does). */
const IDLE_SOCKET_MS = 30_000;

function answerOf(response: IncomingMessage): StreamAnswer {
  // A reset after the head (a server answering 413 and closing while the body is still going out)
  // must not become an uncaught stream error; `text()` reports it, `discard()` ignores it.
  let failure: Error | undefined;
  response.on('error', (error) => {
    failure = error;
  });
  return {
    status: response.statusCode ?? 0,
    setCookies: () => response.headers['set-cookie'] ?? [],
    header: (name) => firstOf(response.headers[name.toLowerCase()]),
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
    follow: (maxEventBytes, onData) =>
      new Promise<void>((resolve, reject) => {
        if (failure !== undefined) return reject(failure);
        const sse = new SseDataDecoder(maxEventBytes);
        let settled = false;
        const fail = (error: Error) => {
          if (settled) return;
          settled = true;
          response.destroy();
          reject(error);
        };
        // A string decoder keeps a character split between two reads whole.
        response.setEncoding('utf8');
        response.on('data', (piece: string) => {
          try {
            sse.push(piece, onData);
          } catch (error) {
            fail(error instanceof Error ? error : new Error(String(error)));
          }
        });
        response.once('end', () => {
          settled = true;
          resolve();
        });
        response.once('error', fail);
        // Closed without an end: the socket went away mid-stream.
        response.once('close', () => fail(new Error('the stream was cut before it ended')));
      }),
  };
}

/** A header's first value. */
function firstOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * An exchange owning one keep-alive agent for the short requests (a few sockets to the one server
 * of a connection) and one for the streams (a socket per open stream, not reused); `close()`
 * destroys every socket of both.
 */
export function nodeHttpExchange(url: string): OwnedExchange {
  const secure = new URL(url).protocol === 'https:';
  // With a `timeout`, Node's agent also honours the server's `Keep-Alive: timeout=N` and drops an
  // idle socket a second before the server would; without one it ignores the hint and may send a
  // request on a socket the server is closing (ECONNRESET, "socket hang up").
  const options = { keepAlive: true, maxSockets: 8, timeout: IDLE_SOCKET_MS };
  const agent = secure ? new HttpsAgent(options) : new HttpAgent(options);
  const request = secure ? httpsRequest : httpRequest;
  const streams = secure ? new HttpsAgent() : new HttpAgent();
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
    stream: ({ url: target, headers, signal }: StreamRequest) =>
      new Promise<StreamAnswer>((resolve, reject) => {
        const outgoing = request(target, { method: 'GET', headers, agent: streams, signal });
        outgoing.once('response', (response) => resolve(answerOf(response)));
        outgoing.on('error', reject);
        outgoing.end();
      }),
    close: () => {
      agent.destroy();
      streams.destroy();
    },
  };
}
