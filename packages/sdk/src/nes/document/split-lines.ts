/** @internal A line of text: its content and the line end that follows it (`''` only on the last line). */
export interface SplitLine {
  /** The line's text without its line end. */
  readonly content: string;
  /** `'\n'`, `'\r\n'`, `'\r'`, or `''` for the last line of a text. */
  readonly eol: string;
}

/**
 * Splits `text` at its line ends (`\r\n`, `\r` and `\n`, as LSP counts lines). The result always
 * ends with one line whose `eol` is `''` (empty when `text` ends with a line end). Linear in
 * `text`.
 */
export function splitLines(text: string): SplitLine[] {
  const lines: SplitLine[] = [];
  let start = 0;
  for (let at = 0; at < text.length; at++) {
    const unit = text.charCodeAt(at);
    if (unit === 10) {
      lines.push({ content: text.slice(start, at), eol: '\n' });
      start = at + 1;
    } else if (unit === 13) {
      if (text.charCodeAt(at + 1) === 10) {
        lines.push({ content: text.slice(start, at), eol: '\r\n' });
        at += 1;
      } else {
        lines.push({ content: text.slice(start, at), eol: '\r' });
      }
      start = at + 1;
    }
  }
  lines.push({ content: text.slice(start), eol: '' });
  return lines;
}
