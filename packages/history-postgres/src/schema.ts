import { HistoryStoreError } from '@acp-kit/sdk';
import type pg from 'pg';
import { MIGRATIONS } from './migrations/index.js';
import { SCHEMA_VERSION } from './schema-version.js';

/** The tables a schema at `version` has. */
function tablesAt(version: number): Set<string> {
  const tables = new Set<string>();
  for (const step of MIGRATIONS.slice(0, version)) {
    for (const name of step.adds) tables.add(name);
    for (const name of step.drops ?? []) tables.delete(name);
  }
  return tables;
}

/** Checks a schema name and returns it quoted for SQL. Only plain lower-case identifiers are accepted. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new HistoryStoreError(
      'invalid_argument',
      `/schema: expected a lower-case SQL identifier (letters, digits, _), got "${schema}"`,
      { pointer: '/schema' },
    );
  }
  return `"${schema}"`;
}

/**
 * Brings `schema` to {@link SCHEMA_VERSION} inside one transaction on `client`, serialized across
 * processes by an advisory lock. Refuses (without writing) a schema from a newer version, a schema
 * holding someone else's tables, and a half-present one; fails with `read_only` when the database
 * cannot be written. Returns the version found before migrating.
 */
export async function migrate(
  client: pg.ClientBase,
  schema: string,
  location: string,
  /** Stop at this version (tests that build an older schema); default the current one. */
  target: number = SCHEMA_VERSION,
): Promise<number> {
  const s = quoteSchema(schema);
  await client.query('BEGIN');
  try {
    const readOnly = await client.query<{ ro: string }>('SELECT current_setting($1) AS ro', [
      'transaction_read_only',
    ]);
    if (readOnly.rows[0]?.ro === 'on') {
      throw new HistoryStoreError('read_only', `${location}: the database is read-only`, { path: location });
    }
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`acp-kit history schema ${schema}`]);
    const tables = (
      await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      )
    ).rows.map((row) => row.table_name);
    let version = 0;
    if (tables.includes('schema_migrations')) {
      const found = await client.query<{ v: number | null }>(
        `SELECT max(version)::integer AS v FROM ${s}.schema_migrations`,
      );
      version = found.rows[0]?.v ?? 0;
    } else if (tables.length > 0) {
      throw new HistoryStoreError(
        'not_a_history_store',
        `${location}: schema "${schema}" holds other tables (${tables.join(', ')}); refusing to write to it`,
        { path: location },
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new HistoryStoreError(
        'unsupported_version',
        `${location}: schema "${schema}" has history schema version ${version}; this version of @acp-kit/history-postgres reads up to ${SCHEMA_VERSION}`,
        { path: location },
      );
    }
    if (version > 0) {
      const missing = [...tablesAt(version)].filter((name) => !tables.includes(name));
      if (missing.length > 0) {
        throw new HistoryStoreError(
          'corrupt',
          `${location}: schema "${schema}" claims version ${version} but lacks ${missing.join(', ')}`,
          { path: location },
        );
      }
    }
    if (version === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE ${s}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
    }
    for (let v = version; v < target; v++) {
      await client.query(MIGRATIONS[v]!.sql(s));
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [v + 1]);
    }
    const writable = await client.query<{ ok: boolean }>('SELECT has_table_privilege($1, $2) AS ok', [
      `${s}.schema_migrations`,
      'INSERT, UPDATE, DELETE',
    ]);
    if (writable.rows[0]?.ok !== true) {
      throw new HistoryStoreError('read_only', `${location}: no write privilege on schema "${schema}"`, {
        path: location,
      });
    }
    await client.query('COMMIT');
    return version;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
