/**
 * `OutputTail` keeps what v1's `terminal/output` answers with: the last `limit` bytes of a
 * terminal's output, cut forward to a character boundary, whatever the chunks it arrived in.
 */
import { describe, expect, it } from 'vitest';
import { OutputTail } from '../src/v1-agent-as-v2/output-tail.js';

/** The expected tail: the last `limit` bytes of `text`, moved forward past a split character. */
function expectedTail(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let cut = bytes.length - limit;
  while (cut < bytes.length && ((bytes[cut] as number) & 0xc0) === 0x80) cut++;
  return bytes.subarray(cut).toString('utf8');
}

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['a', 'é', '€', '😀', '\n'];

describe('OutputTail', () => {
  it('keeps everything up to the limit and says nothing was dropped', () => {
    const tail = new OutputTail(8);
    tail.append('abc');
    tail.append('défg');
    expect(tail.read()).toEqual({ output: 'abcdéfg', truncated: false });
  });

  it('drops the oldest bytes at a character boundary, across chunks', () => {
    const tail = new OutputTail(5);
    tail.append('xx');
    tail.append('😀');
    tail.append('éé');
    // 2 + 4 + 4 bytes: the last 5 start on the emoji's last byte, so only the two é are kept.
    expect(tail.read()).toEqual({ output: 'éé', truncated: true });
  });

  it('with limit 0 keeps nothing', () => {
    const tail = new OutputTail(0);
    tail.append('abc');
    expect(tail.read()).toEqual({ output: '', truncated: true });
  });

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`matches the last limit bytes of the whole output for random chunks (seed ${seed})`, () => {
      const next = random(seed);
      const limit = Math.floor(next() * 40);
      const tail = new OutputTail(limit);
      let whole = '';
      for (let i = 0; i < 50; i++) {
        let chunk = '';
        const length = Math.floor(next() * 6);
        for (let j = 0; j < length; j++) chunk += ALPHABET[Math.floor(next() * ALPHABET.length)];
        tail.append(chunk);
        whole += chunk;
        const { output, truncated } = tail.read();
        expect(output).toBe(expectedTail(whole, limit));
        expect(Buffer.byteLength(output, 'utf8')).toBeLessThanOrEqual(limit);
        expect(truncated).toBe(Buffer.byteLength(whole, 'utf8') > limit);
      }
    });
  }
});
