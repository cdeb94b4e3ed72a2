export {
  type AgentNegotiationOptions,
  CORE_PROTOCOL_VERSION,
  negotiateAgentVersion,
} from './negotiate-agent.js';
export { type ClientNegotiationOptions, negotiateClientVersion } from './negotiate-client.js';
export { type UnsupportedProtocolVersionData, unsupportedProtocolVersion } from './unsupported-version.js';
export type { CodecChannel, CodecHandshake, CodecSession, WireCodec } from './wire-codec.js';
export { schemaValidator } from './v2-validator.js';
