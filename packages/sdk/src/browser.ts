/**
 * What a web page needs to reach a remote agent, importing nothing from Node: Streamable HTTP
 * ({@link connectHttp}, over `fetch`) and WebSocket ({@link connectWebSocket}, over the browser's
 * `WebSocket`), and ndjson over a Web Streams pair ({@link webStreamTransport}, for workers). Pair them with `Client` from `@acp-kit/sdk/client` and `Connection` from
 * `@acp-kit/sdk/rpc`.
 *
 * @packageDocumentation
 */
export {
  type BrowserWebSocketClientOptions,
  connectWebSocket,
  type WhatwgWebSocket,
  type WhatwgWebSocketConstructor,
} from './transports/browser-websocket-client.js';
export { type CookieStore, MemoryCookieStore } from './transports/cookie-jar.js';
export { connectHttp, type HttpClientOptions, HttpStatusError } from './transports/http-client.js';
export {
  WebStreamMessageReader,
  WebStreamMessageWriter,
  type WebStreamTransportOptions,
  webStreamTransport,
} from './transports/web-stream.js';
export { WebSocketHandshakeError } from './transports/websocket-handshake-error.js';
