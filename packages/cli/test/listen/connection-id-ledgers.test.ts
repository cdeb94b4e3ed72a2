import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionIdLedgers, checkLedgerFile } from '../../src/listen/connection-id-ledgers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const scratch = (): string => {
  dir = mkdtempSync(join(tmpdir(), 'acp-kit-ledgers-test-'));
  return dir;
};
/** A record in the format of bridge --history. */
const record = (n: number): string =>
  JSON.stringify({
    sessionId: 's',
    record: { type: 'v1', kind: 'agent_message', messageId: `m${n}`, v1Id: `v${n}` },
  });

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

  it('keeps the shared ledger in a --history file across restarts: open connections are merged on close, and the next gateway seeds from it', async () => {
    const history = join(scratch(), 'ids.ndjson');
    await checkLedgerFile(history);
    expect(statSync(history).mode & 0o777).toBe(0o600);
    const before = new ConnectionIdLedgers({ history });
    const ended = before.open('c1');
    appendFileSync(ended, `${record(1)}\n`);
    before.release(ended);
    const open = before.open('c2');
    appendFileSync(open, `${record(2)}\n`);
    before.close();
    expect(existsSync(before.dir)).toBe(false);
    expect(readFileSync(history, 'utf8')).toBe(`${record(1)}\n${record(2)}\n`);
    // A crash cut the last write short: the next start skips it and appends on a line of its own.
    appendFileSync(history, '{"sessionId":"s","rec');
    await checkLedgerFile(history);
    const after = new ConnectionIdLedgers({ history });
    const fresh = after.open('c1');
    expect(readFileSync(fresh, 'utf8')).toBe(`${record(1)}\n${record(2)}\n`);
    appendFileSync(fresh, `${record(3)}\n`);
    appendFileSync(history, '{"sessionId":"s","rec');
    after.close();
    expect(readFileSync(history, 'utf8')).toBe(`${record(1)}\n${record(2)}\n${record(3)}\n`);
  });

  it('rejects a --history file that is not a ledger, naming the file and the line', async () => {
    const history = join(scratch(), 'notes.txt');
    writeFileSync(history, `${record(1)}\n{"hello":"world"}\n`);
    await expect(checkLedgerFile(history)).rejects.toThrow(
      `ID ledger ${history} is damaged: line 2 is not a ledger record (/sessionId: expected a string)`,
    );
  });

  it('holds at most maxBytes: records past it are neither merged nor seeded, with a warning', () => {
    const history = join(scratch(), 'ids.ndjson');
    const warnings: string[] = [];
    const maxBytes = 3 * (record(1).length + 1);
    const ledgers = new ConnectionIdLedgers({ history, maxBytes, warn: (line) => warnings.push(line) });
    const first = ledgers.open('c1');
    appendFileSync(first, `${record(1)}\n${record(2)}\n`);
    ledgers.release(first);
    const second = ledgers.open('c2');
    expect(readFileSync(second, 'utf8')).toBe(`${record(1)}\n${record(2)}\n`);
    appendFileSync(second, [3, 4, 5].map((n) => `${record(n)}\n`).join(''));
    // Seeding a third reads only maxBytes in all: the shared two and the first of the second's own.
    const third = ledgers.open('c3');
    expect(readFileSync(third, 'utf8')).toBe(`${record(1)}\n${record(2)}\n${record(3)}\n`);
    expect(warnings).toEqual([
      `a new connection's ID ledger holds only the first ${maxBytes} bytes of the records known`,
    ]);
    ledgers.release(second);
    // Only a prefix of what the connection added fits.
    expect(readFileSync(history, 'utf8')).toBe(`${record(1)}\n${record(2)}\n${record(3)}\n`);
    expect(warnings[1]).toBe(
      `ID ledger ${history} is full (bound ${maxBytes} bytes): records of a connection not kept`,
    );
    appendFileSync(third, `${record(6)}\n`);
    ledgers.close();
    expect(statSync(history).size).toBe(maxBytes);
  });
});
