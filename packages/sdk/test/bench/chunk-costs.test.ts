/**
 * The capacity benchmark's floors (bench/chunk-costs.ts) at a tiny size, against a real sink child
 * process on 127.0.0.1: each is a positive, finite CPU time per message. No figure of speed is
 * asserted.
 */
import { describe, expect, it } from 'vitest';
import { chunkCosts } from '../../bench/chunk-costs.js';

describe('the capacity floors', () => {
  it('measures stringify + write (tight and spread over sockets), parse and parse + validate per message', async () => {
    const costs = await chunkCosts(300, 2, 16);
    for (const value of [costs.stringifyWriteUs, costs.spreadWriteUs, costs.parseUs, costs.parseValidateUs]) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThanOrEqual(0);
    }
  });
});
