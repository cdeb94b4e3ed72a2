import { describe, expect, it, vi } from 'vitest';
import { refusalLogger } from '../../src/listen/refusal-log.js';

describe('refused-handshake log', () => {
  it('logs at most ten refusals per window, then how many more there were, so a flood cannot flood stderr', () => {
    const lines: string[] = [];
    const log = refusalLogger((line) => lines.push(line), 10, 60_000);
    for (let i = 0; i < 500; i += 1)
      log({ address: '127.0.0.1', status: 401, reason: 'missing or wrong connection token' });
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe(
      'acp-kit agent: refused 127.0.0.1 with HTTP 401 (missing or wrong connection token)\n',
    );
  });

  it('reports the suppressed count when the next window opens', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const lines: string[] = [];
      const log = refusalLogger((line) => lines.push(line), 2, 1000);
      const refusal = {
        address: 'a',
        status: 403,
        reason: 'origin not allowed',
        origin: 'https://evil.example',
      };
      for (let i = 0; i < 5; i += 1) log(refusal);
      expect(lines).toHaveLength(2);
      vi.setSystemTime(1_001_000);
      log(refusal);
      expect(lines.slice(2)).toEqual([
        'acp-kit agent: … and 3 more handshakes refused\n',
        'acp-kit agent: refused a with HTTP 403 (origin not allowed, Origin "https://evil.example")\n',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
