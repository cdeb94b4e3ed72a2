import { describe, expect, it } from 'vitest';
import { formatElapsed } from '../../src/inspector-app/src/elapsed.js';

describe("the inspector's Time column", () => {
  it('reads as milliseconds, then seconds, then minutes and seconds, never 120812 ms', () => {
    expect(formatElapsed(0)).toBe('0 ms');
    expect(formatElapsed(850)).toBe('850 ms');
    expect(formatElapsed(999.6)).toBe('1.0 s');
    expect(formatElapsed(1000)).toBe('1.0 s');
    expect(formatElapsed(12_345)).toBe('12.3 s');
    expect(formatElapsed(59_940)).toBe('59.9 s');
    expect(formatElapsed(59_999)).toBe('1:00.0');
    expect(formatElapsed(60_000)).toBe('1:00.0');
    expect(formatElapsed(120_812)).toBe('2:00.8');
    expect(formatElapsed(3_665_000)).toBe('61:05.0');
  });

  it('shows nothing for a time that is not one', () => {
    expect(formatElapsed(Number.NaN)).toBe('');
    expect(formatElapsed(-5)).toBe('');
  });
});
