export {
  type ChildProcessTransport,
  describeExit,
  type ProcessExit,
  type ShutdownOptions,
  type SpawnTransportOptions,
  shutdownSpawned,
  spawnTransport,
} from './child-process.js';
export {
  onTerminationSignal,
  TERMINATION_SIGNALS,
  type TerminationWatch,
} from './termination-signals.js';
export {
  type ConnectionLimits,
  type ResolvedConnectionLimits,
  resolveLimits,
  SESSION_LIMIT_ERROR_CODE,
} from './connection-limits.js';
export { createInProcessPair, type InProcessPairOptions } from './in-process.js';
export { isLoopbackHost } from './loopback.js';
export { limitSessions } from './session-limit.js';
export {
  StreamMessageReader,
  StreamMessageWriter,
  type StreamTransportOptions,
  stdioTransport,
  streamTransport,
} from './stream.js';
export {
  WebStreamMessageReader,
  WebStreamMessageWriter,
  type WebStreamTransportOptions,
  webStreamTransport,
} from './web-stream.js';
export {
  WebSocketMessageReader,
  WebSocketMessageWriter,
  type WebSocketTransportOptions,
  webSocketTransport,
} from './websocket.js';
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
export {
  ACP_KIT_PROTOCOL,
  generateToken,
  TOKEN_PROTOCOL_PREFIX,
  tokensMatch,
  validateToken,
} from './websocket-token.js';
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
export {
  CONNECTION_ID_HEADER,
  type HttpEndpointOptions,
  type HttpRequest,
  type HttpResponse,
  SESSION_ID_HEADER,
} from './http-endpoint.js';
export { type GuardRefusal, HandshakeGuard, type HandshakeGuardOptions } from './handshake-guard.js';
export { type CookieStore, MemoryCookieStore } from './cookie-jar.js';
export { type HttpClientOptions, HttpStatusError } from './http-client.js';
export { connectHttp } from './node-http-client.js';
export { readSseData, SseEventTooLargeError } from './sse-parser.js';
