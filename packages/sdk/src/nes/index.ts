/**
 * `@acp-kit/sdk/nes`: Next Edit Suggestions (unstable upstream surface): the text document model
 * an agent keeps from `document/didOpen` and `document/didChange`, the agent's `nes` option types
 * and the client's {@link NesClient}.
 */
export * from './document/index.js';
export type {
  NesAgentOptions,
  NesLimits,
  NesSessionView,
  NesSuggestCall,
} from './agent/nes-agent-options.js';
export { type EditorChange, type EditorSuggestion, NesClient } from './client/nes-client.js';
export { negotiatePositionEncoding } from './encoding.js';
