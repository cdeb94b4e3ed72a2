import { existsSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteHistoryStore } from '../src/index.js';
import { tempDir } from './helpers.js';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('SqliteHistoryStore file permissions', () => {
  const tmp = tempDir('mode');
  afterAll(tmp.cleanup);
  let previous = 0;
  // The common default umask, under which SQLite alone would create 0644 files.
  beforeEach(() => {
    previous = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(previous);
  });

  it('creates a new history file and its WAL and SHM companions readable by the owner only (0600)', async () => {
    const path = tmp.file('private.sqlite');
    const store = SqliteHistoryStore.open(path);
    await store.createSession({ sessionId: 's', cwd: '/w' });
    expect(existsSync(`${path}-wal`) && existsSync(`${path}-shm`)).toBe(true);
    expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual(['600', '600', '600']);
    await store.close();
  });

  it('leaves the mode of an existing file as it is (the CLI warns about it)', async () => {
    const path = tmp.file('existing.sqlite');
    writeFileSync(path, '', { mode: 0o644 });
    const store = SqliteHistoryStore.open(path);
    expect(mode(path)).toBe('644');
    await store.close();
  });
});
