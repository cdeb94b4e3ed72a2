import {
  build,
  collect,
  type LineNode,
  lineAt,
  lineAtOffset,
  merge,
  offsetOfLine,
  split,
} from './line-tree.js';
import { characterOf, isPositionEncoding, type PositionEncoding, utf16IndexOf } from './position-encoding.js';
import { splitLines } from './split-lines.js';
import { TextDocumentError } from './text-document-error.js';
import type {
  TextContentChange,
  TextDocumentChangeParams,
  TextDocumentOpenParams,
  TextPosition,
  TextRange,
} from './types.js';
import { checkChangeParams, checkOpenParams, checkPosition, checkRange } from './validate-params.js';

/** The default bound on a document's length: 32 Mi UTF-16 code units (64 MiB of string). */
export const DEFAULT_MAX_DOCUMENT_LENGTH = 32 * 1024 * 1024;

/** Options of {@link TextDocument.open}. */
export interface TextDocumentOptions {
  /**
   * The encoding of the positions in this document's `document/didChange` ranges, and the default
   * of its position methods: the connection's negotiated `positionEncoding`. Default `'utf-16'`.
   */
  readonly encoding?: PositionEncoding;
  /**
   * The longest text the document may hold, in UTF-16 code units; an open or a change that would
   * exceed it is refused (`too_large`). Default {@link DEFAULT_MAX_DOCUMENT_LENGTH}.
   */
  readonly maxLength?: number;
}

/**
 * One open text document as an agent sees it: opened by `document/didOpen`, kept current by
 * `document/didChange` (full replacements and incremental range edits, several per notification,
 * applied in order), with positions converted between UTF-16, UTF-32 and UTF-8.
 *
 * Lines end at `\r\n`, `\r` or `\n`. Positions are clamped as LSP clamps them: a `character` past
 * its line's end means the line's end (before its line end), a `line` past the last line means
 * the end of the document. A `character` that falls inside a code point (between the halves of a
 * surrogate pair in UTF-16, inside a multi-byte sequence in UTF-8) is rounded down to the start of
 * that code point, so an edit never splits a character.
 *
 * The lines are held in a balanced tree that each change updates in place of the lines it
 * touches: a change costs O(log n) plus the length of its text and of the lines it touches, not
 * the size of the document. Reading {@link TextDocument.text} joins the lines once per version.
 * Bad input throws a {@link TextDocumentError} (JSON-RPC -32602, with a JSON pointer) and leaves
 * the document unchanged, even when an earlier change of the same notification was valid.
 */
export class TextDocument {
  readonly #uri: string;
  readonly #languageId: string;
  readonly #encoding: PositionEncoding;
  readonly #maxLength: number;
  #version: number;
  #root: LineNode;
  #text: string | undefined;

  private constructor(
    params: TextDocumentOpenParams,
    root: LineNode,
    encoding: PositionEncoding,
    maxLength: number,
  ) {
    this.#uri = params.uri;
    this.#languageId = params.languageId;
    this.#version = params.version;
    this.#text = params.text;
    this.#root = root;
    this.#encoding = encoding;
    this.#maxLength = maxLength;
  }

  /**
   * Opens a document from the params of a `document/didOpen` (extra fields such as `sessionId`
   * are ignored). Throws a {@link TextDocumentError} when a field has the wrong shape or the text
   * is longer than `options.maxLength`.
   */
  static open(params: TextDocumentOpenParams, options: TextDocumentOptions = {}): TextDocument {
    const encoding = options.encoding ?? 'utf-16';
    if (!isPositionEncoding(encoding)) {
      throw new TextDocumentError(
        'invalid_params',
        '',
        "a position encoding ('utf-16', 'utf-32' or 'utf-8')",
        String(encoding),
      );
    }
    const maxLength = options.maxLength ?? DEFAULT_MAX_DOCUMENT_LENGTH;
    const checked = checkOpenParams(params);
    if (checked.text.length > maxLength) {
      throw new TextDocumentError(
        'too_large',
        '/text',
        `a text of at most ${maxLength} UTF-16 code units`,
        `${checked.text.length}`,
      );
    }
    return new TextDocument(checked, build(splitLines(checked.text)) as LineNode, encoding, maxLength);
  }

  /** The document's URI. */
  get uri(): string {
    return this.#uri;
  }

  /** Its language identifier, as `document/didOpen` gave it. */
  get languageId(): string {
    return this.#languageId;
  }

  /** The version of the last change applied (or of the open). */
  get version(): number {
    return this.#version;
  }

  /** The encoding of this document's change ranges and the default of its position methods. */
  get encoding(): PositionEncoding {
    return this.#encoding;
  }

  /** The whole text. Joined from the lines on the first read after a change, then cached. */
  get text(): string {
    this.#text ??= collect(this.#root, []).join('');
    return this.#text;
  }

  /** The length of the text in UTF-16 code units (O(1)). */
  get length(): number {
    return this.#root.length;
  }

  /** The number of lines: one more than the number of line ends (O(1)). */
  get lineCount(): number {
    return this.#root.count;
  }

  /** The text of line `line` without its line end, or `undefined` past the last line. */
  lineText(line: number): string | undefined {
    if (!Number.isInteger(line) || line < 0 || line >= this.#root.count) return undefined;
    return lineAt(this.#root, line).content;
  }

  /**
   * Applies the params of a `document/didChange`: checks every change's shape and the version
   * (greater than the current one, else `stale_version` at `/version`), then applies the changes in
   * order, each to the result of the previous one, with ranges in the document's encoding. All or
   * nothing: when any change is refused, the document keeps its text and version.
   */
  applyChange(params: TextDocumentChangeParams): void {
    const checked = checkChangeParams(params);
    if (checked.uri !== undefined && checked.uri !== this.#uri) {
      throw new TextDocumentError(
        'invalid_params',
        '/uri',
        `this document's URI (${this.#uri})`,
        checked.uri,
      );
    }
    if (checked.version <= this.#version) {
      throw new TextDocumentError(
        'stale_version',
        '/version',
        `a version greater than the document's current ${this.#version}`,
        `${checked.version}`,
      );
    }
    let root = this.#root;
    checked.contentChanges.forEach((change, i) => {
      root = this.#applyOne(root, change);
      if (root.length > this.#maxLength) {
        throw new TextDocumentError(
          'too_large',
          `/contentChanges/${i}/text`,
          `a change leaving at most ${this.#maxLength} UTF-16 code units in the document`,
          `${root.length}`,
        );
      }
    });
    this.#root = root;
    this.#version = checked.version;
    this.#text = checked.contentChanges.length === 0 ? this.#text : undefined;
  }

  #applyOne(root: LineNode, change: TextContentChange): LineNode {
    const range = change.range;
    if (range === undefined || range === null) return build(splitLines(change.text)) as LineNode;
    const start = this.#resolve(root, range.start, this.#encoding);
    const end = this.#resolve(root, range.end, this.#encoding);
    const lastLine = lineAt(root, end.line);
    let first = start.line;
    let region =
      lineAt(root, first).content.slice(0, start.index) +
      change.text +
      lastLine.content.slice(end.index) +
      lastLine.eol;
    // A `\n` now following a line that ends in a lone `\r` joins it into one `\r\n` line end.
    if (region.charCodeAt(0) === 10 && first > 0) {
      const previous = lineAt(root, first - 1);
      if (previous.eol === '\r') {
        first -= 1;
        region = `${previous.content}\r${region}`;
      }
    }
    const lines = splitLines(region);
    // The region ends with a line end unless it reaches the document's end: no last line of its own.
    if (end.line < root.count - 1) lines.pop();
    const [before, rest] = split(root, first);
    const [, after] = split(rest, end.line - first + 1);
    return merge(merge(before, build(lines)), after) as LineNode;
  }

  #resolve(
    root: LineNode,
    position: TextPosition,
    encoding: PositionEncoding,
  ): { line: number; index: number } {
    if (position.line >= root.count) {
      const line = root.count - 1;
      return { line, index: lineAt(root, line).content.length };
    }
    return {
      line: position.line,
      index: utf16IndexOf(lineAt(root, position.line).content, position.character, encoding),
    };
  }

  #encodingOr(encoding: PositionEncoding | undefined): PositionEncoding {
    const chosen = encoding ?? this.#encoding;
    if (!isPositionEncoding(chosen)) {
      throw new TextDocumentError(
        'invalid_params',
        '',
        "a position encoding ('utf-16', 'utf-32' or 'utf-8')",
        String(chosen),
      );
    }
    return chosen;
  }

  /**
   * The UTF-16 offset in {@link TextDocument.text} of `position`, whose `character` is counted in
   * `encoding` (default: the document's). Clamped as LSP clamps: past a line's end means the line's
   * end, past the last line means the end of the text; inside a code point means its start.
   */
  offsetAt(position: TextPosition, encoding?: PositionEncoding): number {
    const chosen = this.#encodingOr(encoding);
    const checked = checkPosition(position, '');
    const { line, index } = this.#resolve(this.#root, checked, chosen);
    return offsetOfLine(this.#root, line) + index;
  }

  /**
   * The position, with `character` counted in `encoding` (default: the document's), of UTF-16
   * offset `offset` in {@link TextDocument.text}. An offset below 0 or past the end is clamped to
   * the text; one inside a line end (between `\r` and `\n`) means the end of that line; one
   * between the halves of a surrogate pair means the pair's start.
   */
  positionAt(offset: number, encoding?: PositionEncoding): TextPosition {
    const chosen = this.#encodingOr(encoding);
    if (typeof offset !== 'number' || !Number.isInteger(offset)) {
      throw new TextDocumentError('invalid_params', '', 'an integer offset', String(offset));
    }
    const clamped = Math.min(Math.max(offset, 0), this.#root.length);
    const { line, start, node } = lineAtOffset(this.#root, clamped);
    return { line, character: characterOf(node.content, clamped - start, chosen) };
  }

  /**
   * The same place as `position` (counted in `from`) with its `character` counted in `to`,
   * clamped into the document first (see {@link TextDocument.offsetAt}).
   */
  convertPosition(position: TextPosition, from: PositionEncoding, to: PositionEncoding): TextPosition {
    return this.positionAt(this.offsetAt(position, from), to);
  }

  /**
   * The text of `range` (positions in `encoding`, default the document's; clamped like
   * {@link TextDocument.offsetAt}), or the whole text without a range. A range whose end is before
   * its start is refused.
   */
  getText(range?: TextRange, encoding?: PositionEncoding): string {
    if (range === undefined) return this.text;
    const chosen = this.#encodingOr(encoding);
    const checked = checkRange(range, '');
    const start = this.#resolve(this.#root, checked.start, chosen);
    const end = this.#resolve(this.#root, checked.end, chosen);
    if (start.line === end.line) return lineAt(this.#root, start.line).content.slice(start.index, end.index);
    const first = lineAt(this.#root, start.line);
    const parts = [first.content.slice(start.index), first.eol];
    for (let line = start.line + 1; line < end.line; line++) {
      const node = lineAt(this.#root, line);
      parts.push(node.content, node.eol);
    }
    parts.push(lineAt(this.#root, end.line).content.slice(0, end.index));
    return parts.join('');
  }

  /**
   * Throws a {@link TextDocumentError} (`outside_document`, at `pointer`) unless `position` lies in
   * the document as it is, without clamping: its line exists and its character is at most the
   * line's length in `encoding` (default: the document's). For positions a peer must keep inside
   * the document, such as `nes/suggest`'s. A character inside a code point passes (and reads as
   * that code point's start).
   */
  assertInside(position: TextPosition, pointer = '', encoding?: PositionEncoding): void {
    const chosen = this.#encodingOr(encoding);
    const checked = checkPosition(position, pointer);
    if (checked.line >= this.#root.count) {
      throw new TextDocumentError(
        'outside_document',
        `${pointer}/line`,
        `a line below ${this.#root.count} (the document's line count at version ${this.#version})`,
        `${checked.line}`,
      );
    }
    const content = lineAt(this.#root, checked.line).content;
    const lineLength = characterOf(content, content.length, chosen);
    if (checked.character > lineLength) {
      throw new TextDocumentError(
        'outside_document',
        `${pointer}/character`,
        `a character of at most ${lineLength} (line ${checked.line}'s length in ${chosen} at version ${this.#version})`,
        `${checked.character}`,
      );
    }
  }
}
