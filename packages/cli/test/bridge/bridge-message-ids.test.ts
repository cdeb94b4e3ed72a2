/**
 * `acp-kit bridge --serve v2 --history <file>` as processes: a v1 agent (official SDK, no echo)
 * behind the bridge, the bridge restarted on the same ledger file, and every message keeps the ID
 * the clients saw before the restart — also a reply that a permission request split live — while
 * new messages get IDs never used before.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTransport } from '@acp-kit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, clientOver, idleCount, requireBuild, type TestClient, tempDir, textOf } from '../harness.js';

const V1_AGENT = fileURLToPath(
  new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url),
);
const temp = tempDir();
beforeAll(requireBuild);
afterAll(() => temp.cleanup());

function bridge(ledger: string, history: string) {
  return spawnTransport(
    process.execPath,
    [
      BIN,
      'bridge',
      '--serve',
      'v2',
      '--history',
      ledger,
      '--',
      process.execPath,
      '--import',
      'tsx',
      V1_AGENT,
    ],
    { name: 'bridge', env: { ...process.env, V1_HISTORY: history, V1_RECORD_IDS: '1' } },
  );
}

const allow = { onPermission: () => ({ outcome: { outcome: 'selected' as const, optionId: 'yes' } }) };
const messages = (t: TestClient, sessionId: string) =>
  t.client.store.snapshot(sessionId).messages.map((m) => [m.kind, m.messageId, textOf(m.content ?? [])]);

describe('acp-kit bridge --serve v2 --history', () => {
  it('keeps every messageId across a bridge process restart and never issues one twice', {
    timeout: 120_000,
  }, async () => {
    const ledger = join(temp.dir, 'ids.ndjson');
    const history = join(temp.dir, 'v1-history.json');
    const first = await clientOver(bridge(ledger, history), allow);
    const sessionId = await first.client.newSession('/tmp');
    const receipts = [await first.client.prompt(sessionId, [{ type: 'text', text: 'split' }])];
    await idleCount(first, 1);
    receipts.push(await first.client.prompt(sessionId, [{ type: 'text', text: 'one' }]));
    await idleCount(first, 2);
    const before = messages(first, sessionId);
    expect(before.filter(([kind]) => kind === 'agent_message')).toHaveLength(3);
    first.client.close();

    const second = await clientOver(bridge(ledger, history), allow);
    await second.client.resume(sessionId, { cwd: '/tmp', replay: true });
    expect(messages(second, sessionId)).toEqual(before);
    const receipt = await second.client.prompt(sessionId, [{ type: 'text', text: 'two' }]);
    await idleCount(second, 1);
    expect(receipts).not.toContain(receipt);
    const after = messages(second, sessionId);
    const ids = after.map(([kind, id]) => `${kind}:${id}`);
    expect(new Set(ids).size).toBe(ids.length);
    second.client.close();
  });

  it('refuses to start on a damaged ledger file, naming the file and the line', {
    timeout: 60_000,
  }, async () => {
    const ledger = join(temp.dir, 'damaged.ndjson');
    writeFileSync(ledger, '{"sessionId":"s","record":{"type":"issue"}}\n');
    const child = spawn(
      process.execPath,
      [BIN, 'bridge', '--serve', 'v2', '--history', ledger, '--', 'true'],
      {
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain(`ID ledger ${ledger} is damaged: line 1 is not a ledger record`);
  });
});
