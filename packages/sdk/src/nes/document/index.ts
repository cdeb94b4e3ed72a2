/** The text document model of Next Edit Suggestions: documents kept current by `document/*` events. */
export {
  characterOf,
  isPositionEncoding,
  POSITION_ENCODINGS,
  type PositionEncoding,
  utf16IndexOf,
} from './position-encoding.js';
export { DEFAULT_MAX_DOCUMENT_LENGTH, TextDocument, type TextDocumentOptions } from './text-document.js';
export { TextDocumentError, type TextDocumentErrorCode } from './text-document-error.js';
export type {
  TextContentChange,
  TextDocumentChangeParams,
  TextDocumentOpenParams,
  TextPosition,
  TextRange,
} from './types.js';
