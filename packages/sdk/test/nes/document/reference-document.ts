/**
 * The straightforward reference the text document model is checked against (property tests) and
 * measured against (bench/nes-document.ts): the text as one string, edited by slicing, its lines
 * found by scanning the whole text on every question, and characters counted by walking the
 * line's code points with `Array.from` and `TextEncoder`. Same rules as the model: LSP clamping,
 * a character inside a code point rounds down to its start, an offset inside a line end means the
 * end of that line.
 */
import type { PositionEncoding, TextContentChange, TextPosition } from '../../../src/nes/index.js';

const encoder = new TextEncoder();

function width(codePoint: string, encoding: PositionEncoding): number {
  if (encoding === 'utf-16') return codePoint.length;
  if (encoding === 'utf-32') return 1;
  return encoder.encode(codePoint).length;
}

interface ReferenceLine {
  start: number;
  content: string;
}

/** A document held as one string; every operation looks at the whole text. */
export class ReferenceDocument {
  constructor(
    public text: string,
    readonly encoding: PositionEncoding = 'utf-16',
  ) {}

  lines(): ReferenceLine[] {
    const lines: ReferenceLine[] = [];
    const ends = /\r\n|\r|\n/g;
    let start = 0;
    for (let match = ends.exec(this.text); match !== null; match = ends.exec(this.text)) {
      lines.push({ start, content: this.text.slice(start, match.index) });
      start = match.index + match[0].length;
    }
    lines.push({ start, content: this.text.slice(start) });
    return lines;
  }

  offsetAt(position: TextPosition, encoding: PositionEncoding = this.encoding): number {
    const lines = this.lines();
    const line = lines[position.line];
    if (line === undefined) return this.text.length;
    let counted = 0;
    let index = 0;
    for (const codePoint of Array.from(line.content)) {
      if (counted + width(codePoint, encoding) > position.character) break;
      counted += width(codePoint, encoding);
      index += codePoint.length;
    }
    return line.start + index;
  }

  positionAt(offset: number, encoding: PositionEncoding = this.encoding): TextPosition {
    const clamped = Math.min(Math.max(offset, 0), this.text.length);
    const lines = this.lines();
    let number = 0;
    while (number + 1 < lines.length && (lines[number + 1] as ReferenceLine).start <= clamped) number += 1;
    const line = lines[number] as ReferenceLine;
    const local = Math.min(clamped - line.start, line.content.length);
    let character = 0;
    let index = 0;
    for (const codePoint of Array.from(line.content)) {
      if (index + codePoint.length > local) break;
      character += width(codePoint, encoding);
      index += codePoint.length;
    }
    return { line: number, character };
  }

  apply(changes: readonly TextContentChange[]): void {
    for (const change of changes) {
      if (change.range === undefined || change.range === null) {
        this.text = change.text;
        continue;
      }
      const start = this.offsetAt(change.range.start);
      const end = this.offsetAt(change.range.end);
      this.text = this.text.slice(0, start) + change.text + this.text.slice(end);
    }
  }
}
