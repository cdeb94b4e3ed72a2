import { readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, SqliteHistoryStore } from '../src/index.js';
import { makeUnwritable, openError, tempDir } from './helpers.js';

describe('SqliteHistoryStore.open on a file it cannot use', () => {
  const tmp = tempDir('open');
  const undo: (() => void)[] = [];
  afterEach(() => {
    for (const fn of undo.splice(0)) fn();
  });
  afterAll(tmp.cleanup);

  it('creates a new file in WAL mode with the current schema version', async () => {
    const path = tmp.file('new.sqlite');
    const store = SqliteHistoryStore.open(path);
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('refuses a file that is not a SQLite database with corrupt, naming the path, and leaves it as it was', () => {
    const path = tmp.file('garbage.sqlite');
    const garbage = Buffer.from('this is not a database, it is a shopping list: eggs, milk, '.repeat(100));
    writeFileSync(path, garbage);
    const error = openError(() => SqliteHistoryStore.open(path));
    expect(error).toMatchObject({ code: 'corrupt', path });
    expect(error.message).toContain(path);
    expect(readFileSync(path)).toEqual(garbage);
  });

  it('reports damaged pages as corrupt at open when asked to verify', async () => {
    const path = tmp.file('damaged.sqlite');
    const store = SqliteHistoryStore.open(path);
    await store.createSession({ sessionId: 's', cwd: '/w' });
    await store.appendMessages(
      's',
      Array.from({ length: 500 }, (_, i) => ({
        kind: 'agent_message' as const,
        messageId: `m${i}`,
        content: [{ type: 'text', text: 'x'.repeat(200) }] as never,
      })),
    );
    await store.close();
    const bytes = readFileSync(path);
    // Keep the header (page 1) intact and scribble over the b-tree pages behind it.
    bytes.fill(0xa5, 4096, Math.min(bytes.length, 4096 * 12));
    writeFileSync(path, bytes);
    const error = openError(() => SqliteHistoryStore.open(path, { verify: true }));
    expect(error).toMatchObject({ code: 'corrupt', path });
  });

  it("refuses another application's database with not_a_history_store and does not touch it", () => {
    const path = tmp.file('someone-else.sqlite');
    const db = new Database(path);
    db.exec(
      'CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)',
    );
    db.close();
    const before = readFileSync(path);
    const error = openError(() => SqliteHistoryStore.open(path));
    expect(error).toMatchObject({ code: 'not_a_history_store', path });
    expect(error.message).toContain('invoices');
    expect(readFileSync(path)).toEqual(before);
  });

  it('refuses a file written by a newer schema version with unsupported_version', async () => {
    const path = tmp.file('future.sqlite');
    await SqliteHistoryStore.open(path).close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(openError(() => SqliteHistoryStore.open(path))).toMatchObject({
      code: 'unsupported_version',
      path,
    });
  });

  it('fails with locked when another connection holds the write lock', async () => {
    const path = tmp.file('locked.sqlite');
    await SqliteHistoryStore.open(path).close();
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const error = openError(() => SqliteHistoryStore.open(path, { busyTimeoutMs: 20 }));
      expect(error).toMatchObject({ code: 'locked', path });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const store = SqliteHistoryStore.open(path);
    await store.close();
  });

  it('fails with read_only when the file cannot be written', async (context) => {
    const path = tmp.file('readonly.sqlite');
    const store = SqliteHistoryStore.open(path);
    await store.createSession({ sessionId: 's', cwd: '/w' });
    await store.close();
    const restore = makeUnwritable(path);
    if (restore === null) context.skip('cannot make a file unwritable for root here (no chattr)');
    else undo.push(restore);
    const error = openError(() => SqliteHistoryStore.open(path));
    expect(error).toMatchObject({ code: 'read_only', path });
  });

  it('fails with io, naming the path, when the directory does not exist', () => {
    const path = tmp.file('missing-dir/history.sqlite');
    expect(openError(() => SqliteHistoryStore.open(path))).toMatchObject({ code: 'io', path });
  });
});
