/**
 * The shapes the text document model reads, structurally the same as upstream's `Position`,
 * `Range`, `TextDocumentContentChangeEvent`, `DidOpenDocumentNotification` and
 * `DidChangeDocumentNotification` (extra fields such as `sessionId` and `_meta` are ignored), so
 * a notification's params can be passed as they arrive.
 */

/** A zero-based position: `character` is counted in the document's negotiated encoding. */
export interface TextPosition {
  /** Zero-based line number. */
  readonly line: number;
  /** Zero-based offset within the line, in the position encoding. */
  readonly character: number;
}

/** A range between two positions: `start` inclusive, `end` exclusive. */
export interface TextRange {
  /** Where the range starts (inclusive). */
  readonly start: TextPosition;
  /** Where the range ends (exclusive). */
  readonly end: TextPosition;
}

/**
 * One content change of a `document/didChange`: with a `range`, `text` replaces that range; with
 * none (absent or `null`), `text` is the whole new content.
 */
export interface TextContentChange {
  /** The range replaced, or absent / `null` for a full replacement. */
  readonly range?: TextRange | null;
  /** The new text of the range, or of the whole document. */
  readonly text: string;
}

/** What opens a document: the fields of `document/didOpen`. */
export interface TextDocumentOpenParams {
  /** The document's URI. */
  readonly uri: string;
  /** Its language identifier (e.g. `"typescript"`). */
  readonly languageId: string;
  /** Its version number (a safe integer); later changes must carry greater ones. */
  readonly version: number;
  /** Its full text. */
  readonly text: string;
}

/** What changes a document: the fields of `document/didChange`. */
export interface TextDocumentChangeParams {
  /** The document's URI; when present it must be the document's own. */
  readonly uri?: string;
  /** The version after the changes: greater than the document's current one. */
  readonly version: number;
  /** The changes, applied in order, each to the result of the previous one. */
  readonly contentChanges: readonly TextContentChange[];
}
