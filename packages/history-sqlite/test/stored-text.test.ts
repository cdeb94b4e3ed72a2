import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteHistoryStore } from '../src/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stored-text');
afterAll(tmp.cleanup);

describe('the session log read from SQLite', () => {
  it('hands each entry its stored JSON text, except text with a line break (it could not be sent as one line)', async () => {
    const path = tmp.file('text.sqlite');
    const store = SqliteHistoryStore.open(path);
    await store.log.createSession({ sessionId: 's', cwd: '/' });
    const update = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm1',
      content: { type: 'text', text: 'two\nlines \u2028 and "quotes"' },
    } as const;
    await store.log.append('s', [{ update }, { update: { ...update, messageId: 'm2' } }]);
    await store.close();

    // A file written by someone else may hold valid JSON with whitespace line breaks between tokens.
    const db = new Database(path);
    db.prepare('UPDATE entries SET body = ? WHERE seq = 2').run(
      JSON.stringify({ ...update, messageId: 'm2' }, null, 2),
    );
    db.close();

    const reopened = SqliteHistoryStore.open(path);
    const [first, second] = (await reopened.log.read('s')).entries;
    expect(first?.update).toEqual(update);
    expect(first?.json).toBe(JSON.stringify(update));
    expect(JSON.parse(first!.json!)).toEqual(first?.update);
    expect(second?.update).toEqual({ ...update, messageId: 'm2' });
    expect(second?.json).toBeUndefined();
    await reopened.close();
  });
});
