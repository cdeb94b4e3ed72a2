import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConnectionIdLedgers } from '../../src/listen/connection-id-ledgers.js';

const line = (n: number): string => JSON.stringify({ sessionId: 's', record: { n } });

describe('ConnectionIdLedgers (serve --v1: the message-ID ledgers of the connections)', () => {
  it('seeds a new connection with every complete record the others wrote, each once, and leaves out a line still being written', () => {
    const ledgers = new ConnectionIdLedgers();
    try {
      const first = ledgers.open('c1');
      expect(readFileSync(first, 'utf8')).toBe('');
      expect(statSync(first).mode & 0o777).toBe(0o600);
      appendFileSync(first, `${line(1)}\n${line(2)}\n`);
      const second = ledgers.open('c2');
      expect(readFileSync(second, 'utf8')).toBe(`${line(1)}\n${line(2)}\n`);
      appendFileSync(second, `${line(3)}\n`);
      appendFileSync(first, `${line(4)}\n{"sessionId":"s","rec`);
      const third = ledgers.open('c3');
      expect(readFileSync(third, 'utf8').trimEnd().split('\n')).toEqual([line(1), line(2), line(4), line(3)]);
    } finally {
      ledgers.close();
    }
  });

  it("merges an ended connection's records and removes its file; close removes the directory", () => {
    const ledgers = new ConnectionIdLedgers();
    const first = ledgers.open('c1');
    appendFileSync(first, `${line(1)}\n`);
    const second = ledgers.open('c2');
    appendFileSync(second, `${line(2)}\n`);
    ledgers.release(first);
    ledgers.release(second);
    expect(existsSync(first)).toBe(false);
    expect(ledgers.files()).toEqual(['merged.ndjson']);
    const third = ledgers.open('c3');
    expect(readFileSync(third, 'utf8')).toBe(`${line(1)}\n${line(2)}\n`);
    ledgers.close();
    expect(existsSync(ledgers.dir)).toBe(false);
  });
});
