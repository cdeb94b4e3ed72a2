import { asRecord } from '../analysis/envelope.js';

/** A position encoding of next edit suggestions. */
export type NesEncoding = 'utf-16' | 'utf-32' | 'utf-8';

/** Why a position does not lie inside a document: the pointer below the position's and what was expected. */
export interface OutsideDocument {
  /** `/line` or `/character`, or `` for a value that is no position at all. */
  field: string;
  expected: string;
}

/** A line's length counted in `encoding` (the line holds no line break). */
function lengthIn(line: string, encoding: NesEncoding): number {
  if (encoding === 'utf-16') return line.length;
  let length = 0;
  for (const char of line) {
    const point = char.codePointAt(0)!;
    length += encoding === 'utf-32' ? 1 : point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return length;
}

/** The UTF-16 index in `line` of a character counted in `encoding` (clamped to the line's end). */
function indexIn(line: string, character: number, encoding: NesEncoding): number {
  if (encoding === 'utf-16') return Math.min(character, line.length);
  let counted = 0;
  let index = 0;
  for (const char of line) {
    if (counted >= character) break;
    const point = char.codePointAt(0)!;
    counted += encoding === 'utf-32' ? 1 : point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    index += char.length;
  }
  return index;
}

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

/**
 * The conformance kit's own view of a document of next edit suggestions, rebuilt from a
 * transcript's `document/didOpen` and `document/didChange` (the lint entry stays free of the SDK).
 * Straightforward rather than fast: each change splices the whole text.
 */
export class NesDocument {
  #text: string;
  version: number;

  constructor(
    text: string,
    version: number,
    readonly encoding: NesEncoding,
  ) {
    this.#text = text;
    this.version = version;
  }

  get text(): string {
    return this.#text;
  }

  /** The document's lines, without their line breaks (`\r\n`, `\n` or `\r` ends a line). */
  lines(): string[] {
    return this.#text.split(/\r\n|\n|\r/);
  }

  /** Applies a `document/didChange`'s params; false when they cannot be applied (the document is then unknown). */
  apply(params: Record<string, unknown>): boolean {
    if (!isCount(params.version) || !Array.isArray(params.contentChanges)) return false;
    for (const value of params.contentChanges) {
      const change = asRecord(value);
      if (typeof change?.text !== 'string') return false;
      const range = asRecord(change.range);
      if (!range) {
        this.#text = change.text;
        continue;
      }
      const start = this.#offset(range.start);
      const end = this.#offset(range.end);
      if (start === undefined || end === undefined || end < start) return false;
      this.#text = this.#text.slice(0, start) + change.text + this.#text.slice(end);
    }
    this.version = params.version;
    return true;
  }

  /** Why `position` does not lie inside the document, unclamped; undefined when it does. */
  outside(value: unknown): OutsideDocument | undefined {
    const position = asRecord(value);
    if (!position || !isCount(position.line) || !isCount(position.character))
      return { field: '', expected: 'a position {line, character} of non-negative integers' };
    const lines = this.lines();
    if (position.line >= lines.length)
      return {
        field: '/line',
        expected: `a line below ${lines.length} (the document's line count at version ${this.version})`,
      };
    const length = lengthIn(lines[position.line]!, this.encoding);
    if (position.character > length)
      return {
        field: '/character',
        expected: `a character of at most ${length} (line ${position.line}'s length in ${this.encoding} at version ${this.version})`,
      };
    return undefined;
  }

  /** The UTF-16 offset of a change's position (a character past its line's end clamped, as LSP does). */
  #offset(value: unknown): number | undefined {
    const position = asRecord(value);
    if (!position || !isCount(position.line) || !isCount(position.character)) return undefined;
    const breaks = /\r\n|\n|\r/g;
    let start = 0;
    for (let line = 0; line < position.line; line++) {
      const found = breaks.exec(this.#text);
      if (!found) return this.#text.length;
      start = found.index + found[0].length;
    }
    const next = breaks.exec(this.#text);
    const line = this.#text.slice(start, next ? next.index : this.#text.length);
    return start + indexIn(line, position.character, this.encoding);
  }
}
