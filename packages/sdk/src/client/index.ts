export {
  CLIENT_PROTOCOL_VERSION,
  Client,
  type ClientConnection,
  type ClientOptions,
  type Submission,
} from './client.js';
export * from './conversation/index.js';
