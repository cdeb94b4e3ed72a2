import { copyFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LogHistoryStore } from '@acp-kit/sdk';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, SqliteSessionLog } from '../src/index.js';
import { type FixtureReading, readFixtureSessions } from './fixtures/read-fixture-sessions.js';
import { tempDir, text } from './helpers.js';

// Written by the schema-version-2 release, with what it read back (see fixtures/make-v2-fixture.ts).
const FIXTURE = fileURLToPath(new URL('./fixtures/v2-history.sqlite', import.meta.url));
const EXPECTED = JSON.parse(
  readFileSync(new URL('./fixtures/v2-history.expected.json', import.meta.url), 'utf8'),
) as FixtureReading;
const tmp = tempDir('release-file');
afterAll(tmp.cleanup);

function copyOfFixture(name: string): string {
  const path = tmp.file(name);
  copyFileSync(FIXTURE, path);
  return path;
}

describe('opening a file written by the schema-version-2 release', () => {
  it('is a version-2 file with the per-message projection (the test reads what the release wrote)', () => {
    const db = new Database(FIXTURE, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 7 });
    db.close();
  });

  it('reads every session, log entry and retained message back as the release did', async () => {
    const path = copyOfFixture('v2.sqlite');
    const log = SqliteSessionLog.open(path);
    const history = new LogHistoryStore(log);
    expect(await readFixtureSessions(log, (id) => history.messages(id))).toEqual(EXPECTED);
    await log.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(['claims', 'entries', 'issued_ids', 'sessions', 'sqlite_sequence']);
    db.close();
  });

  it('keeps claims and issued IDs, and the log continues after the entries it has', async () => {
    const path = copyOfFixture('v2-ids.sqlite');
    const candidates = ['gen_1', 'gen_2', 'gen_3', 'gen_4', 'native-7', 'fresh'];
    let i = 0;
    const log = SqliteSessionLog.open(path, {
      generateMessageId: () => candidates[i++ % candidates.length]!,
    });
    const history = new LogHistoryStore(log);
    expect(await log.nextMessageId('sess_a')).toBe('fresh');
    await expect(
      history.appendMessage('sess_b', { kind: 'user_message', messageId: 'b1', content: [] }),
    ).rejects.toMatchObject({
      code: 'duplicate_message',
    });
    expect(
      await log.append('sess_b', [
        { update: { sessionUpdate: 'agent_message_chunk', messageId: 'gen_5', content: text('!') } as never },
      ]),
    ).toEqual({ first: 9, last: 9 });
    const [, answer] = (await history.readMessages('sess_b')).messages;
    expect(answer?.content).toEqual([text('Let me '), text('look.'), text('!')]);
    await log.close();
  });
});
