/** Why a {@link TextDocumentError} was thrown. */
export type TextDocumentErrorCode =
  /** A field has the wrong shape (see `pointer` and `expected`). */
  | 'invalid_params'
  /** A `document/didChange` whose version is not greater than the document's. */
  | 'stale_version'
  /** A position or range that must lie inside the document does not. */
  | 'outside_document'
  /** The change would make the document longer than its `maxLength`. */
  | 'too_large';

/**
 * The one error the text document model throws for bad input. Every code is a refusal of the
 * request's parameters: answer it as JSON-RPC `-32602` (`rpcCode`) with `pointer` and `expected`
 * in the error's data. The document is left exactly as it was before the refused call.
 */
export class TextDocumentError extends Error {
  override readonly name = 'TextDocumentError';
  /** The JSON-RPC error code to answer with: always `-32602` (invalid params). */
  readonly rpcCode = -32602;

  constructor(
    /** Machine-readable reason. */
    readonly code: TextDocumentErrorCode,
    /** JSON pointer into the notification's or request's params, e.g. `/contentChanges/2/range/start/line`. */
    readonly pointer: string,
    /** What the value at `pointer` should have been, in words. */
    readonly expected: string,
    /** What was found instead, in words (included in the message). */
    readonly found: string,
  ) {
    super(`${pointer || '(params)'}: expected ${expected}, found ${found}`);
  }

  /** The error's JSON-RPC `data`: `{ pointer, expected, reason }`. */
  toData(): { pointer: string; expected: string; reason: TextDocumentErrorCode } {
    return { pointer: this.pointer, expected: this.expected, reason: this.code };
  }
}
