import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DecodedLine, NdjsonDecoder } from '../../src/rpc/index.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const texts = (lines: DecodedLine[]): string[] => lines.map((l) => (l.ok ? l.text : `!${l.error.reason}`));

describe('NdjsonDecoder', () => {
  it('yields the same lines however the byte stream is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => !s.includes('\n') && s.trim() !== ''),
          {
            maxLength: 8,
          },
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          const all = bytes(lines.map((l) => `${l}\n`).join(''));
          const points = [...new Set(cuts.map((c) => (all.length === 0 ? 0 : c % all.length)))].sort(
            (a, b) => a - b,
          );
          const decoder = new NdjsonDecoder();
          const out: DecodedLine[] = [];
          let prev = 0;
          for (const point of [...points, all.length]) {
            out.push(...decoder.push(all.subarray(prev, point)));
            prev = point;
          }
          out.push(...decoder.end());
          expect(texts(out)).toEqual(lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)));
        },
      ),
    );
  });

  it('skips blank lines and strips a trailing carriage return', () => {
    const decoder = new NdjsonDecoder();
    expect(texts(decoder.push(bytes('\n  \n{"a":1}\r\n\r\n{"b":2}\n')))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('flushes a last line that has no newline at the end of input', () => {
    const decoder = new NdjsonDecoder();
    expect(decoder.push(bytes('{"a":1}'))).toEqual([]);
    expect(texts(decoder.end())).toEqual(['{"a":1}']);
  });

  it('accepts a line of exactly the limit and rejects one byte more', () => {
    const decoder = new NdjsonDecoder(10);
    expect(texts(decoder.push(bytes('0123456789\n0123456789a\n')))).toEqual(['0123456789', '!oversized']);
    expect(texts(decoder.push(bytes('0123456789\r\n')))).toEqual(['0123456789']);
  });

  it('reports an oversized line once, with its size, however many chunks it spans', () => {
    const decoder = new NdjsonDecoder(16);
    const out: DecodedLine[] = [];
    for (let i = 0; i < 100; i++) out.push(...decoder.push(bytes('x'.repeat(50))));
    out.push(...decoder.push(bytes('tail\n{"ok":true}\n')));
    expect(texts(out)).toEqual(['!oversized', '{"ok":true}']);
    const first = out[0];
    expect(first?.ok === false && first.error.bytes).toBe(5004);
    expect(first?.ok === false && first.error.excerpt.length).toBeLessThanOrEqual(121);
  });

  it('does not keep the bytes of an oversized line', () => {
    const decoder = new NdjsonDecoder(16);
    for (let i = 0; i < 100; i++) decoder.push(bytes('y'.repeat(1000)));
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('reports invalid UTF-8 for that line only', () => {
    const decoder = new NdjsonDecoder();
    const chunk = new Uint8Array([...bytes('{"a":"'), 0xff, ...bytes('"}\n{"b":1}\n')]);
    expect(texts(decoder.push(chunk))).toEqual(['!invalid-utf8', '{"b":1}']);
  });

  it('rejects a UTF-8 sequence truncated by the end of the line', () => {
    const decoder = new NdjsonDecoder();
    const euro = bytes('€');
    expect(texts(decoder.push(new Uint8Array([...euro.subarray(0, 2), 0x0a])))).toEqual(['!invalid-utf8']);
  });

  it('does not depend on the caller keeping its chunk buffer intact', () => {
    const decoder = new NdjsonDecoder();
    const chunk = bytes('{"a":1}');
    decoder.push(chunk);
    chunk.fill(0x20);
    expect(texts(decoder.push(bytes('\n')))).toEqual(['{"a":1}']);
  });
});
