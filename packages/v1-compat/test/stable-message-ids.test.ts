/**
 * An ID the bridge issues names one message forever: replay reuses it (also when the v1 agent
 * names the message differently on load, or groups its chunks differently), a later message never
 * gets it again, and with a ledger file both hold across bridge restarts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock, SessionUpdate } from '@acp-kit/schema';
import type { Client } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { FileIdLedger } from '../src/index.js';
import { clientOf, textOf, type V1Rig, v1Rig } from './helpers.js';

const CWD = '/tmp';
const text = (t: string): [ContentBlock] => [{ type: 'text', text: t }];
const isIdle = (u: SessionUpdate) => u.sessionUpdate === 'state_update' && u.state === 'idle';
const allow = {
  onPermission: () => ({ outcome: { outcome: 'selected' as const, optionId: 'yes' } }),
};

/** `[kind, messageId, text]` of every message a client holds, in order. */
function messages(client: Client, sessionId: string): [string, string | null, string][] {
  return client.store.snapshot(sessionId).messages.map((m) => [m.kind, m.messageId, textOf(m.content)]);
}

function tempFile(name: string): string {
  return join(mkdtempSync(join(tmpdir(), 'v1-compat-ids-')), name);
}

const rigs: V1Rig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

function start(...args: Parameters<typeof v1Rig>): V1Rig {
  const rig = v1Rig(...args);
  rigs.push(rig);
  return rig;
}

/** Prompts and waits for the turn's idle. */
async function turn(rig: V1Rig, sessionId: string, prompt: string): Promise<string> {
  const idles = rig.log.updates.filter(isIdle).length;
  const messageId = await rig.client.prompt(sessionId, text(prompt));
  await rig.log.waitFor(() => rig.log.updates.filter(isIdle).length > idles);
  return messageId;
}

/** A new v2 client of the rig's bridge that resumes `sessionId` with replay. */
async function replayed(rig: V1Rig, sessionId: string): Promise<[string, string | null, string][]> {
  const other = clientOf(rig.bridge);
  await other.client.initialize();
  await other.client.resume(sessionId, { cwd: CWD, replay: true });
  const seen = messages(other.client, sessionId);
  other.client.close();
  return seen;
}

describe('message IDs through the v1 bridge', () => {
  it('replays a prompt the v1 agent did not echo under the messageId its receipt returned, though the agent names it on load', async () => {
    const rig = start({ V1_RECORD_IDS: '1' });
    await rig.client.initialize();
    const sessionId = await rig.client.newSession(CWD);
    const receipt = await turn(rig, sessionId, 'hello');
    expect(receipt).toMatch(/^m1_/);
    const replay = await replayed(rig, sessionId);
    expect(replay.filter(([kind]) => kind === 'user_message')).toEqual([['user_message', receipt, 'hello']]);
    expect(replay).toEqual(messages(rig.client, sessionId));
  });

  it('replays a reply that a permission request split live as the same two messages, and never reissues their IDs', async () => {
    const rig = start({}, allow);
    await rig.client.initialize();
    const sessionId = await rig.client.newSession(CWD);
    await turn(rig, sessionId, 'split');
    const live = messages(rig.client, sessionId);
    // Live, the permission request ended the first run of chunks: two agent messages.
    expect(live.filter(([kind]) => kind === 'agent_message').map(([, , t]) => t)).toEqual([
      'May I? ',
      'Answer: selected',
    ]);
    expect(await replayed(rig, sessionId)).toEqual(live);
    await turn(rig, sessionId, 'next');
    const after = messages(rig.client, sessionId);
    expect(after.slice(0, live.length)).toEqual(live);
    const ids = after.map(([kind, id]) => `${kind}:${id}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(after.at(-1)).toEqual(['agent_message', expect.any(String), 'echo: next']);
    // A second replay still agrees with what the clients saw live.
    expect(await replayed(rig, sessionId)).toEqual(after);
  });

  const envs: Record<string, string>[] = [
    { V1_RECORD_IDS: '1' },
    {},
    { V1_ECHO: 'plain' },
    { V1_ECHO: 'ids' },
  ];
  for (const env of envs) {
    it(`keeps every messageId across a bridge restart with a ledger file, and issues new ones for new messages (${JSON.stringify(env)})`, async () => {
      const files = { V1_HISTORY: tempFile('history.json'), ...env };
      const ledger = tempFile('ids.ndjson');
      const first = start(files, allow, { ledger: await FileIdLedger.open(ledger) });
      await first.client.initialize();
      const sessionId = await first.client.newSession(CWD);
      const receipts = [await turn(first, sessionId, 'split'), await turn(first, sessionId, 'one')];
      const before = messages(first.client, sessionId);
      await first.close();

      const second = start(files, allow, { ledger: await FileIdLedger.open(ledger) });
      await second.client.initialize();
      await second.client.resume(sessionId, { cwd: CWD, replay: true });
      expect(messages(second.client, sessionId)).toEqual(before);
      expect(
        messages(second.client, sessionId)
          .filter(([kind]) => kind === 'user_message')
          .map(([, id]) => id),
      ).toEqual(receipts);
      const receipt = await turn(second, sessionId, 'two');
      expect(receipts).not.toContain(receipt);
      const after = messages(second.client, sessionId);
      expect(after.slice(0, before.length)).toEqual(before);
      const ids = after.map(([kind, id]) => `${kind}:${id}`);
      expect(new Set(ids).size).toBe(ids.length);
    });
  }
});
