// JSON-RPC core and transports (rpc/, transports/)
export * from './rpc/index.js';
export * from './transports/index.js';
export * from './transcript/index.js';
