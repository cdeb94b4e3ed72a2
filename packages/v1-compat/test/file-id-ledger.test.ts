import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileIdLedger, type LedgerRecord } from '../src/index.js';

const file = (): string => join(mkdtempSync(join(tmpdir(), 'v1-compat-ledger-')), 'ids.ndjson');
const issue: LedgerRecord = { type: 'issue', kind: 'user_message', messageId: 'm1_a', chunks: 1 };
const end: LedgerRecord = { type: 'end', kind: 'agent_message', messageId: 'm1_b', chunks: 3 };

describe('FileIdLedger', () => {
  it('reads back, after reopening, every record appended per session in order', async () => {
    const path = file();
    const first = await FileIdLedger.open(path);
    await first.append('s1', [issue]);
    await first.append('s2', [end]);
    await first.append('s1', [end]);
    first.close();
    const second = await FileIdLedger.open(path);
    expect(await second.read('s1')).toEqual([issue, end]);
    expect(await second.read('s2')).toEqual([end]);
    expect(await second.read('s3')).toEqual([]);
    second.close();
  });

  it('drops a last line cut short by a crash, and appends cleanly after it', async () => {
    const path = file();
    const ledger = await FileIdLedger.open(path);
    await ledger.append('s1', [issue]);
    ledger.close();
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"sessionId":"s1","rec`);
    const reopened = await FileIdLedger.open(path);
    expect(await reopened.read('s1')).toEqual([issue]);
    await reopened.append('s1', [end]);
    reopened.close();
    expect(await (await FileIdLedger.open(path)).read('s1')).toEqual([issue, end]);
  });

  it('refuses a damaged ledger, naming the file, the line and what was expected', async () => {
    const path = file();
    writeFileSync(
      path,
      `${JSON.stringify({ sessionId: 's1', record: issue })}\n${JSON.stringify({ sessionId: 's1', record: { type: 'issue', kind: 'user_message' } })}\n`,
    );
    await expect(FileIdLedger.open(path)).rejects.toThrow(
      `ID ledger ${path} is damaged: line 2 is not a ledger record (/record/messageId: expected a string)`,
    );
    writeFileSync(path, 'not json\n');
    await expect(FileIdLedger.open(path)).rejects.toThrow(`ID ledger ${path} is damaged: line 1 is not JSON`);
  });
});
