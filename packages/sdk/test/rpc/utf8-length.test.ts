/**
 * The core counts outgoing bytes without Node's `Buffer` where there is none (a browser): the
 * portable count agrees with what an encoder writes, lone surrogates included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portableUtf8ByteLength } from '../../src/rpc/utf8-length.js';

const encoded = (text: string): number => new TextEncoder().encode(text).length;

describe('portableUtf8ByteLength', () => {
  it('counts ASCII, two-, three- and four-byte characters and lone surrogates as an encoder writes them', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a😀b', '\ud800', '\udc00x', '\ud83d\ud83d\ude00'])
      expect(portableUtf8ByteLength(text), JSON.stringify(text)).toBe(encoded(text));
  });

  it('agrees with TextEncoder on any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => portableUtf8ByteLength(text) === encoded(text)),
    );
  });
});
