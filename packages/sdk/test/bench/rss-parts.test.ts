/**
 * Where an agent's RSS grew (bench/rss-parts.ts): V8's spaces are grouped into the young
 * generation, the old generation and the rest, a space only one answer names counts from zero,
 * what no space explains is outside V8's heap, and all of it is per session.
 */
import { describe, expect, it } from 'vitest';
import type { AgentMemory } from '../../bench/agent-memory.js';
import { rssParts } from '../../bench/rss-parts.js';

const answer = (rss: number, spaces: Record<string, number>): AgentMemory => ({
  rss: 0,
  heapUsed: 0,
  external: 0,
  arrayBuffers: 0,
  beforeGc: { rss, spaces },
});

describe("splitting an agent's RSS growth", () => {
  it('groups the spaces, counts what no space explains as outside the heap, and divides by the sessions', () => {
    const before = answer(10_000, { new_space: 1_000, old_space: 2_000, code_space: 500 });
    const after = answer(30_000, {
      new_space: 5_000,
      new_large_object_space: 1_000,
      old_space: 6_000,
      large_object_space: 2_000,
      code_space: 1_500,
    });
    expect(rssParts(before, after, 10)).toEqual({
      youngGeneration: 500,
      oldGeneration: 600,
      otherSpaces: 100,
      outsideHeap: 800,
    });
  });

  it('has no parts when an answer has no breakdown (an agent behind serve answers nothing)', () => {
    expect(rssParts(undefined, answer(1, {}), 1)).toBeUndefined();
    expect(rssParts({ rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }, answer(1, {}), 1)).toBeUndefined();
  });
});
