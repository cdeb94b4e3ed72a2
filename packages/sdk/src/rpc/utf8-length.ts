/** Node's `Buffer.byteLength`, when the runtime has it (it counts natively, without encoding). */
const nodeByteLength = (globalThis as { Buffer?: { byteLength(text: string, encoding: 'utf8'): number } })
  .Buffer?.byteLength;

/**
 * The bytes `text` takes in UTF-8, counted without allocating an encoded copy; a lone surrogate
 * counts as U+FFFD (3 bytes), as an encoder writes it. Uses Node's native count where it exists,
 * so the core runs unchanged in a browser (which has no `Buffer`).
 */
export const utf8ByteLength: (text: string) => number = nodeByteLength
  ? (text) => nodeByteLength(text, 'utf8')
  : portableUtf8ByteLength;

/** {@link utf8ByteLength} for runtimes without `Buffer` (exported for its test). */
export function portableUtf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
