export {
  type AgentNegotiationOptions,
  CORE_PROTOCOL_VERSION,
  negotiateAgentVersion,
} from './negotiate-agent.js';
export { type UnsupportedProtocolVersionData, unsupportedProtocolVersion } from './unsupported-version.js';
export type { CodecChannel, CodecSession, WireCodec } from './wire-codec.js';
