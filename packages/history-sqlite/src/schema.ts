import type Database from 'better-sqlite3';
import { HistoryStoreError } from '@acp-kit/sdk';
import { SCHEMA_VERSION } from './schema-version.js';

/**
 * Migrations by target version. `MIGRATIONS[n - 1]` takes a database from version n-1 to n; each
 * runs inside the opening write transaction, so a failed migration leaves the file as it was.
 */
const MIGRATIONS: readonly ((db: Database.Database) => void)[] = [
  (db) =>
    db.exec(`
  CREATE TABLE sessions (
    ordinal    INTEGER PRIMARY KEY AUTOINCREMENT, -- creation order; never reused, so cursors stay valid
    session_id TEXT NOT NULL UNIQUE,
    cwd        TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_seq   INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE TABLE messages (
    session     INTEGER NOT NULL REFERENCES sessions(ordinal) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('user_message', 'agent_message', 'agent_thought')),
    message_id  TEXT NOT NULL,
    via         TEXT NOT NULL CHECK (via IN ('full', 'chunks')),
    meta        TEXT,
    block_count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session, seq),
    UNIQUE (session, kind, message_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX messages_by_id ON messages(session, message_id);
  -- One row per content block, so a chunk is one INSERT instead of rewriting the whole message.
  CREATE TABLE blocks (
    session INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    idx     INTEGER NOT NULL,
    block   TEXT NOT NULL,
    PRIMARY KEY (session, seq, idx),
    FOREIGN KEY (session, seq) REFERENCES messages(session, seq) ON DELETE CASCADE
  ) STRICT, WITHOUT ROWID;
  -- Every message ID ever issued or retained, so an ID is never handed out twice.
  CREATE TABLE issued_ids (
    session    INTEGER NOT NULL REFERENCES sessions(ordinal) ON DELETE CASCADE,
    message_id TEXT NOT NULL,
    PRIMARY KEY (session, message_id)
  ) STRICT, WITHOUT ROWID;
  `),
  toSessionLog,
  logOnly,
];

/** The tables each version adds and drops: a file of version n has those of 1..n, less the dropped. */
const TABLES: Readonly<
  Record<number, { readonly added: readonly string[]; readonly dropped?: readonly string[] }>
> = {
  1: { added: ['blocks', 'issued_ids', 'messages', 'sessions'] },
  2: { added: ['claims', 'entries'] },
  3: { added: [], dropped: ['blocks', 'messages'] },
};

/**
 * Read-only check run before anything is written (even the switch to WAL, which rewrites the
 * header): refuses a database from a newer version or one that holds someone else's tables.
 * Returns the file's schema version.
 */
export function inspect(db: Database.Database, path: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new HistoryStoreError(
      'unsupported_version',
      `${path} has history schema version ${version}; this version of @acp-kit/history-sqlite reads up to ${SCHEMA_VERSION}`,
      { path },
    );
  }
  const tables = tableNames(db).filter((name) => !name.startsWith('sqlite_'));
  if (version === 0 && tables.length > 0) {
    throw new HistoryStoreError(
      'not_a_history_store',
      `${path} is a SQLite database with other tables (${tables.join(', ')}); refusing to write to it`,
      { path },
    );
  }
  if (version > 0) {
    const expected = new Set<string>();
    for (let v = 1; v <= version; v++) {
      for (const name of TABLES[v]?.added ?? []) expected.add(name);
      for (const name of TABLES[v]?.dropped ?? []) expected.delete(name);
    }
    const missing = [...expected].filter((name) => !tables.includes(name));
    if (missing.length > 0) {
      throw new HistoryStoreError(
        'corrupt',
        `${path} claims schema version ${version} but lacks ${missing.join(', ')}`,
        {
          path,
        },
      );
    }
  }
  return version;
}

/**
 * Brings the file to {@link SCHEMA_VERSION}. Runs inside the opening IMMEDIATE transaction, after
 * {@link inspect}; a failed migration rolls back and leaves the file as it was.
 */
export function migrate(db: Database.Database, path: string): void {
  const version = inspect(db, path);
  for (let v = version; v < SCHEMA_VERSION; v++) MIGRATIONS[v]!(db);
  // Written even when unchanged: a real write proves at open that the file is writable (SQLite
  // silently falls back to read-only when it cannot open a file for writing).
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

function tableNames(db: Database.Database): string[] {
  const rows = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[];
  return rows.map((row) => row.name).sort();
}

/**
 * Version 1 → 2: the session log. Each session gets an append-only log of updates (`entries`, the
 * truth that replay and live delivery read), the claimed message IDs (`claims`) and a directory
 * record (title, `updated_at`, config). `messages`/`blocks` stay, for now, as a per-message
 * projection (version 3 drops them). Existing messages become retained log entries in their `seq` order, in
 * the form they replay in (`full`: one whole update; `chunks`: `content: []` and one chunk per block),
 * and claim their IDs.
 */
function toSessionLog(db: Database.Database): void {
  db.exec(`
    ALTER TABLE sessions ADD COLUMN title TEXT;
    ALTER TABLE sessions ADD COLUMN updated_at TEXT;
    ALTER TABLE sessions ADD COLUMN config TEXT;
    ALTER TABLE sessions ADD COLUMN log_seq INTEGER NOT NULL DEFAULT 0;
    UPDATE sessions SET updated_at = created_at;
    CREATE TABLE entries (
      session INTEGER NOT NULL REFERENCES sessions(ordinal) ON DELETE CASCADE,
      seq     INTEGER NOT NULL,
      retain  INTEGER NOT NULL CHECK (retain IN (0, 1)),
      body    TEXT NOT NULL, -- the session/update body, JSON
      PRIMARY KEY (session, seq)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE claims (
      session    INTEGER NOT NULL REFERENCES sessions(ordinal) ON DELETE CASCADE,
      kind       TEXT NOT NULL,
      message_id TEXT NOT NULL,
      PRIMARY KEY (session, kind, message_id)
    ) STRICT, WITHOUT ROWID;
    INSERT INTO claims (session, kind, message_id) SELECT session, kind, message_id FROM messages;
  `);
  const sessions = db.prepare('SELECT ordinal FROM sessions').pluck().all() as number[];
  const messages = db.prepare<
    [number],
    { seq: number; kind: string; message_id: string; via: string; meta: string | null }
  >('SELECT seq, kind, message_id, via, meta FROM messages WHERE session = ? ORDER BY seq');
  const blocks = db
    .prepare<[number, number], string>('SELECT block FROM blocks WHERE session = ? AND seq = ? ORDER BY idx')
    .pluck();
  const insert = db.prepare('INSERT INTO entries (session, seq, retain, body) VALUES (?, ?, 1, ?)');
  const setSeq = db.prepare('UPDATE sessions SET log_seq = ? WHERE ordinal = ?');
  for (const ordinal of sessions) {
    let seq = 0;
    for (const row of messages.all(ordinal)) {
      const content = blocks.all(ordinal, row.seq);
      const meta = row.meta === null ? '' : `,"_meta":${row.meta}`;
      const head = `{"sessionUpdate":${JSON.stringify(row.kind)},"messageId":${JSON.stringify(row.message_id)}`;
      if (row.via === 'full') {
        insert.run(ordinal, ++seq, `${head},"content":[${content.join(',')}]${meta}}`);
        continue;
      }
      insert.run(ordinal, ++seq, `${head},"content":[]${meta}}`);
      const chunkHead = `{"sessionUpdate":${JSON.stringify(`${row.kind}_chunk`)},"messageId":${JSON.stringify(row.message_id)}`;
      for (const block of content) insert.run(ordinal, ++seq, `${chunkHead},"content":${block}}`);
    }
    setSeq.run(seq, ordinal);
  }
}

/**
 * Version 2 → 3: the log only. The per-message projection (`messages`, `blocks` and the sessions'
 * `last_seq`) goes: the message-level view (`LogHistoryStore` in `@acp-kit/sdk`) folds the log's
 * retained entries instead, which version 2 already wrote for every message.
 */
function logOnly(db: Database.Database): void {
  db.exec(`
    DROP TABLE blocks;
    DROP TABLE messages;
    ALTER TABLE sessions DROP COLUMN last_seq;
  `);
}
