/**
 * `@acp-kit/sdk/nes`: Next Edit Suggestions (unstable upstream surface): the text document model
 * an agent keeps from `document/didOpen` and `document/didChange`, the agent's `nes` option types
 * and the client's {@link NesClient}.
 */
export {
  characterOf,
  DEFAULT_MAX_DOCUMENT_LENGTH,
  isPositionEncoding,
  POSITION_ENCODINGS,
  type PositionEncoding,
  type TextContentChange,
  TextDocument,
  type TextDocumentChangeParams,
  TextDocumentError,
  type TextDocumentErrorCode,
  type TextDocumentOpenParams,
  type TextDocumentOptions,
  type TextPosition,
  type TextRange,
  utf16IndexOf,
} from './document/index.js';
export type {
  NesAgentOptions,
  NesLimits,
  NesSessionView,
  NesSuggestCall,
} from './agent/nes-agent-options.js';
export { type EditorChange, type EditorSuggestion, NesClient } from './client/nes-client.js';
export { negotiatePositionEncoding } from './encoding.js';
