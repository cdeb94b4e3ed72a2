/**
 * Position encodings: what the `character` of a position counts within its line. Upstream's names
 * (`PositionEncodingKind`), as in LSP 3.17.
 */

/**
 * How the `character` of a position is counted: `'utf-16'` code units (the default every peer
 * supports), `'utf-32'` code points, or `'utf-8'` bytes.
 */
export type PositionEncoding = 'utf-16' | 'utf-32' | 'utf-8';

/** Every encoding this model converts between, the default (`'utf-16'`) first. */
export const POSITION_ENCODINGS: readonly PositionEncoding[] = ['utf-16', 'utf-32', 'utf-8'];

/** Whether `value` names an encoding this model can convert (a newer, unknown name is not one). */
export function isPositionEncoding(value: unknown): value is PositionEncoding {
  return value === 'utf-16' || value === 'utf-32' || value === 'utf-8';
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The UTF-16 index in `line` (a line's text without its line end) of a `character` counted in
 * `encoding`. A character past the line's end is clamped to the line's end, as LSP clamps. A
 * character that falls inside a code point (between the two halves of a surrogate pair in UTF-16,
 * or inside a multi-byte sequence in UTF-8) is rounded down to the start of that code point. A
 * lone surrogate counts as one code point of three UTF-8 bytes (the U+FFFD that `TextEncoder`
 * writes for it). Costs O(`character`) for UTF-32 and UTF-8, O(1) for UTF-16.
 */
export function utf16IndexOf(line: string, character: number, encoding: PositionEncoding): number {
  if (encoding === 'utf-16') {
    if (character >= line.length) return line.length;
    if (character > 0 && isHigh(line.charCodeAt(character - 1)) && isLow(line.charCodeAt(character))) {
      return character - 1;
    }
    return character;
  }
  let index = 0;
  let counted = 0;
  while (index < line.length) {
    const unit = line.charCodeAt(index);
    const pair = isHigh(unit) && index + 1 < line.length && isLow(line.charCodeAt(index + 1));
    const width = encoding === 'utf-32' ? 1 : pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    if (counted + width > character) return index;
    counted += width;
    index += pair ? 2 : 1;
  }
  return index;
}

/**
 * The `character`, counted in `encoding`, of UTF-16 index `index` in `line` (a line's text without
 * its line end). An index past the line's end is clamped to it; an index between the two halves of
 * a surrogate pair is rounded down to the pair's start. Costs O(`index`) for UTF-32 and UTF-8.
 */
export function characterOf(line: string, index: number, encoding: PositionEncoding): number {
  let end = Math.min(index, line.length);
  if (end > 0 && end < line.length && isHigh(line.charCodeAt(end - 1)) && isLow(line.charCodeAt(end)))
    end -= 1;
  if (encoding === 'utf-16') return end;
  let counted = 0;
  let at = 0;
  while (at < end) {
    const unit = line.charCodeAt(at);
    const pair = isHigh(unit) && at + 1 < line.length && isLow(line.charCodeAt(at + 1));
    counted += encoding === 'utf-32' ? 1 : pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    at += pair ? 2 : 1;
  }
  return counted;
}
