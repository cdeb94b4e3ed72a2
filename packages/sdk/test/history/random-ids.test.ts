/**
 * Generated IDs: `prefix` + 128 random bits as 22 base64url characters, distinct, and the same
 * whether or not an ID is the pool's last before it is refilled.
 */
import { describe, expect, it } from 'vitest';
import { randomId, randomMessageId } from '../../src/history/message-ids.js';

/** The 16 bytes a 22-character base64url ID encodes. */
function bytesOf(encoded: string): Uint8Array {
  return new Uint8Array(Buffer.from(encoded, 'base64url'));
}

describe('randomId', () => {
  it('gives prefix + 22 base64url characters encoding 16 bytes, distinct over several pool refills', () => {
    const seen = new Set<string>();
    // 256 IDs per pool: 3 000 cross the refill boundary more than ten times.
    for (let i = 0; i < 3000; i += 1) {
      const id = randomId('call_');
      expect(id).toMatch(/^call_[A-Za-z0-9_-]{21}[AQgw]$/);
      const encoded = id.slice('call_'.length);
      expect(bytesOf(encoded)).toHaveLength(16);
      // Our encoding is the standard one: re-encoding the bytes gives the same text.
      expect(Buffer.from(bytesOf(encoded)).toString('base64url')).toBe(encoded);
      seen.add(id);
    }
    expect(seen.size).toBe(3000);
    expect(randomMessageId()).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
  });

  it('spreads its bits: every base64url character turns up in the first position across many IDs', () => {
    const first = new Set<string>();
    for (let i = 0; i < 4000; i += 1) first.add(randomId('')[0]!);
    expect(first.size).toBe(64);
  });
});
