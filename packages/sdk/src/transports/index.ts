/**
 * `@acp-kit/sdk/transports`: what a host or a client author connects with — stdio and child
 * processes, an in-process pair, Web Streams, WebSocket, and the `/acp` endpoint (Streamable HTTP
 * beside WebSocket) as a listener of its own or a handler to mount — with their options and types.
 * The plumbing other acp-kit packages build on (the handshake guard, the ndjson stream reader and
 * writer) is on `@acp-kit/sdk/adapter`.
 *
 * @packageDocumentation
 */
// Child processes over stdio, and stopping them with the command that spawned them
export {
  type ChildProcessTransport,
  type ProcessExit,
  type ShutdownOptions,
  type SpawnTransportOptions,
  shutdownSpawned,
  spawnTransport,
} from './child-process.js';
export { onTerminationSignal, type TerminationWatch } from './termination-signals.js';
// ndjson over Node streams, stdio, Web Streams and an in-process pair
export { type StreamTransportOptions, stdioTransport, streamTransport } from './stream.js';
export { type WebStreamTransportOptions, webStreamTransport } from './web-stream.js';
export { createInProcessPair, type InProcessPairOptions } from './in-process.js';
// WebSocket: a socket you hold, the client, and the server
export { type WebSocketTransportOptions, webSocketTransport } from './websocket.js';
export {
  connectWebSocket,
  type WebSocketClientOptions,
  WebSocketHandshakeError,
} from './websocket-client.js';
export {
  type HandshakeRefusal,
  listenWebSocket,
  type WebSocketServerOptions,
  type WebSocketTlsOptions,
  type WebSocketTransportServer,
} from './websocket-server.js';
// The /acp endpoint: Streamable HTTP and WebSocket, mounted or in a listener of its own
export {
  type AcpFetchInfo,
  type AcpHandler,
  type AcpHandlerOptions,
  createAcpHandler,
} from './acp-handler.js';
export {
  type AcpConnectionInfo,
  type AcpServerOptions,
  type AcpTransportServer,
  listenAcp,
} from './acp-server.js';
export type { HttpEndpointOptions, HttpRequest, HttpResponse } from './http-endpoint.js';
// The Streamable HTTP client
export { connectHttp } from './node-http-client.js';
export { type HttpClientOptions, HttpStatusError } from './http-client.js';
export { type CookieStore, MemoryCookieStore } from './cookie-jar.js';
// What a listener is limited by and guarded with
export { type ConnectionLimits, SESSION_LIMIT_ERROR_CODE } from './connection-limits.js';
export { generateToken, validateToken } from './websocket-token.js';
export { isLoopbackHost } from './loopback.js';
