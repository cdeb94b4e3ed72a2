import type Database from 'better-sqlite3';
import { HistoryStoreError } from '@acp-kit/sdk';
import { SCHEMA_VERSION } from './schema-version.js';

/**
 * Migrations by target version. `MIGRATIONS[n - 1]` takes a database from version n-1 to n; each
 * runs inside the opening write transaction, so a failed migration leaves the file as it was.
 */
const MIGRATIONS: readonly string[] = [
  `
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
  `,
];

const OUR_TABLES = ['blocks', 'issued_ids', 'messages', 'sessions'];

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
    const missing = OUR_TABLES.filter((name) => !tables.includes(name));
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
  for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
  // Written even when unchanged: a real write proves at open that the file is writable (SQLite
  // silently falls back to read-only when it cannot open a file for writing).
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

function tableNames(db: Database.Database): string[] {
  const rows = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[];
  return rows.map((row) => row.name).sort();
}
