import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HistoryStoreError } from '@acp-kit/sdk';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, SqliteHistoryStore } from '../src/index.js';
import { tempDir, text } from './helpers.js';

// Written by the schema-version-1 store as released (see fixtures/make-v1-fixture.ts).
const FIXTURE = fileURLToPath(new URL('./fixtures/v1-history.sqlite', import.meta.url));
const tmp = tempDir('migration');
afterAll(tmp.cleanup);

function copyOfFixture(name: string): string {
  const path = tmp.file(name);
  copyFileSync(FIXTURE, path);
  return path;
}

describe('opening a file written by schema version 1', () => {
  it('is a version-1 fixture (the test reads what the released store wrote)', () => {
    const db = new Database(FIXTURE, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });

  it('migrates to the session log: every retained message becomes log entries in order, in its replay form', async () => {
    const path = copyOfFixture('v1.sqlite');
    const store = SqliteHistoryStore.open(path);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();

    const records = (await store.log.listSessions()).sessions;
    expect(records.map((r) => [r.sessionId, r.cwd, r.title, r.config, r.updatedAt === r.createdAt])).toEqual([
      ['sess_a', '/work/a', null, null, true],
      ['sess_b', '/work/b', null, null, true],
    ]);
    const page = await store.log.read('sess_a');
    expect(page.lastSeq).toBe(8);
    expect(page.entries.map((e) => [e.seq, e.retain, e.update])).toEqual([
      [1, true, { sessionUpdate: 'user_message', messageId: 'gen_1', content: [text('hello')] }],
      [2, true, { sessionUpdate: 'agent_message', messageId: 'gen_2', content: [], _meta: { trace: 't1' } }],
      [3, true, { sessionUpdate: 'agent_message_chunk', messageId: 'gen_2', content: text('Hi, ') }],
      [4, true, { sessionUpdate: 'agent_message_chunk', messageId: 'gen_2', content: text('there.') }],
      [5, true, { sessionUpdate: 'agent_thought', messageId: 'native-7', content: [text('thinking')] }],
      [6, true, { sessionUpdate: 'user_message', messageId: 'native-7', content: [] }],
      [
        7,
        true,
        { sessionUpdate: 'user_message_chunk', messageId: 'native-7', content: text('same id, other kind') },
      ],
      [
        8,
        true,
        { sessionUpdate: 'agent_message', messageId: 'gen_3', content: [text('final'), text(' answer')] },
      ],
    ]);
    expect((await store.log.read('sess_b')).entries.map((e) => e.update)).toEqual([
      { sessionUpdate: 'user_message', messageId: 'b1', content: [text('in b')] },
    ]);
    expect(await store.getSession('sess_gone')).toBeUndefined();
    await store.close();
  });

  it('keeps the message-level view, claims and issued IDs as they were', async () => {
    const path = copyOfFixture('v1-ids.sqlite');
    const candidates = ['gen_1', 'gen_2', 'gen_3', 'gen_4', 'native-7', 'fresh'];
    let i = 0;
    const store = SqliteHistoryStore.open(path, {
      generateMessageId: () => candidates[i++ % candidates.length]!,
    });
    expect(
      (await store.readMessages('sess_a')).messages.map((m) => [
        m.seq,
        m.kind,
        m.messageId,
        m.via,
        m.content,
        m.meta,
      ]),
    ).toEqual([
      [1, 'user_message', 'gen_1', 'full', [text('hello')], null],
      [2, 'agent_message', 'gen_2', 'chunks', [text('Hi, '), text('there.')], { trace: 't1' }],
      [3, 'agent_thought', 'native-7', 'full', [text('thinking')], null],
      [4, 'user_message', 'native-7', 'chunks', [text('same id, other kind')], null],
      [5, 'agent_message', 'gen_3', 'full', [text('final'), text(' answer')], null],
    ]);
    expect(await store.nextMessageId('sess_a')).toBe('fresh');
    for (const [kind, messageId] of [
      ['user_message', 'gen_1'],
      ['agent_thought', 'native-7'],
    ] as const) {
      const error = await store.log
        .append('sess_a', [
          { update: { sessionUpdate: kind, messageId, content: [] } as never, claim: { kind, messageId } },
        ])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HistoryStoreError);
      expect((error as HistoryStoreError).code).toBe('duplicate_message');
    }
    // The log continues after the migrated entries, and the projection follows it.
    expect(
      await store.log.append('sess_a', [
        { update: { sessionUpdate: 'agent_message_chunk', messageId: 'gen_3', content: text('!') } as never },
      ]),
    ).toEqual({ first: 9, last: 9 });
    expect((await store.readMessages('sess_a', { afterSeq: 4 })).messages[0]?.content).toEqual([
      text('final'),
      text(' answer'),
      text('!'),
    ]);
    await store.close();
  });
});
