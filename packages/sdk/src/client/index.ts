export type { AnswerContext, ElicitationCallback, PermissionCallback } from './answers.js';
export {
  type CallOptions,
  CLIENT_PROTOCOL_VERSION,
  Client,
  type ClientConnection,
  type ClientOptions,
  type UnstableClient,
  type ResumeOptions,
  type Submission,
} from './client.js';
export * from './conversation/index.js';
export {
  connectClient,
  type DisconnectedEvent,
  type ReconnectedEvent,
  ReconnectFailedError,
  ReconnectingClient,
  type ReconnectingClientOptions,
  type ReconnectOptions,
} from './reconnecting-client.js';
