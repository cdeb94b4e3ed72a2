import { describe, expect, it } from 'vitest';
import { checkInterleavings } from '../../stress/interleavings.js';

describe('ConversationStore under every delivery order', () => {
  it('reaches the same final conversation for every order of each history, with responses anywhere, lost ones never guessed, replay idempotent', () => {
    const report = checkInterleavings({ histories: 300, perHistory: 8, seed: 1130 });
    expect(report.samples).toEqual([]);
    expect(report).toMatchObject({ histories: 300, interleavings: 2400, divergences: 0 });
    expect(report.replays).toBeGreaterThanOrEqual(2400);
  });
});
