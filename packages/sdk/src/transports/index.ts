export {
  type ChildProcessTransport,
  describeExit,
  type ProcessExit,
  type ShutdownOptions,
  type SpawnTransportOptions,
  spawnTransport,
} from './child-process.js';
export { createInProcessPair, type InProcessPairOptions } from './in-process.js';
export {
  StreamMessageReader,
  StreamMessageWriter,
  type StreamTransportOptions,
  stdioTransport,
  streamTransport,
} from './stream.js';
export {
  connectWebSocket,
  listenWebSocket,
  WebSocketMessageReader,
  WebSocketMessageWriter,
  type WebSocketServerOptions,
  type WebSocketTransportOptions,
  type WebSocketTransportServer,
  webSocketTransport,
} from './websocket.js';
