import type { HistoryStoreError } from '@acp-kit/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresHistoryStore, SCHEMA_VERSION } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

async function openError(open: Promise<unknown>): Promise<HistoryStoreError> {
  try {
    await open;
  } catch (error) {
    expect((error as Error).name).toBe('HistoryStoreError');
    return error as HistoryStoreError;
  }
  throw new Error('expected open to fail');
}

describe('PostgresHistoryStore.open on a database it cannot use', () => {
  const admin = new pg.Client({ connectionString: postgresUrl() });
  beforeAll(() => admin.connect());
  afterAll(() => admin.end());

  const tables = async (schema: string) =>
    (
      await admin.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [schema],
      )
    ).rows.map((row) => row.table_name);

  it('creates its schema with the current version recorded, and reopens it without migrating again', async () => {
    const schema = freshSchema();
    await (await PostgresHistoryStore.open(postgresUrl(), { schema })).close();
    expect(await tables(schema)).toEqual([
      'blocks',
      'issued_ids',
      'log_claims',
      'log_entries',
      'log_issued_ids',
      'log_leases',
      'log_prompts',
      'log_sessions',
      'messages',
      'schema_migrations',
      'sessions',
    ]);
    await (await PostgresHistoryStore.open(postgresUrl(), { schema })).close();
    const { rows } = await admin.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY 1`);
    expect(rows).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
  });

  it('migrates a version 1 schema to the current version, keeping its history', async () => {
    const schema = freshSchema();
    const first = await PostgresHistoryStore.open(postgresUrl(), { schema });
    await first.createSession({ sessionId: 's', cwd: '/w' });
    await first.appendMessage('s', {
      kind: 'user_message',
      messageId: 'm',
      content: [{ type: 'text', text: 'hi' }],
    });
    await first.close();
    // Take the schema back to version 1, as the first release of this package left it.
    await admin.query(
      `DROP TABLE "${schema}".log_entries, "${schema}".log_claims, "${schema}".log_issued_ids, "${schema}".log_sessions, "${schema}".log_leases, "${schema}".log_prompts`,
    );
    await admin.query(`DROP FUNCTION "${schema}".log_append_as, "${schema}".log_append, "${schema}".log_now`);
    await admin.query(`DELETE FROM "${schema}".schema_migrations WHERE version > 1`);
    const reopened = await PostgresHistoryStore.open(postgresUrl(), { schema });
    expect((await reopened.readMessages('s')).messages.map((m) => m.messageId)).toEqual(['m']);
    await reopened.close();
    expect(await tables(schema)).toContain('log_entries');
    const { rows } = await admin.query(`SELECT max(version)::int AS v FROM "${schema}".schema_migrations`);
    expect(rows[0]).toEqual({ v: SCHEMA_VERSION });
  });

  it('migrates once when several replicas open the same fresh schema at the same moment', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(
      Array.from({ length: 5 }, () =>
        PostgresHistoryStore.open(postgresUrl(), { schema, maxConnections: 2 }),
      ),
    );
    await stores[0]!.createSession({ sessionId: 's', cwd: '/w' });
    expect(await stores[4]!.getSession('s')).toMatchObject({ sessionId: 's' });
    for (const store of stores) await store.close();
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`);
    expect(rows[0]).toEqual({ n: SCHEMA_VERSION });
  });

  it('refuses a schema written by a newer version with unsupported_version and leaves it as it was', async () => {
    const schema = freshSchema();
    await (await PostgresHistoryStore.open(postgresUrl(), { schema })).close();
    await admin.query(`INSERT INTO "${schema}".schema_migrations (version) VALUES ($1)`, [
      SCHEMA_VERSION + 1,
    ]);
    const error = await openError(PostgresHistoryStore.open(postgresUrl(), { schema }));
    expect(error.code).toBe('unsupported_version');
    expect(error.message).toContain(`version ${SCHEMA_VERSION + 1}`);
    const { rows } = await admin.query(`SELECT max(version)::int AS v FROM "${schema}".schema_migrations`);
    expect(rows[0]).toEqual({ v: SCHEMA_VERSION + 1 });
  });

  it("refuses a schema holding another application's tables with not_a_history_store and does not touch it", async () => {
    const schema = freshSchema();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(`CREATE TABLE "${schema}".invoices (id int PRIMARY KEY, total numeric)`);
    await admin.query(`INSERT INTO "${schema}".invoices VALUES (1, 9.5)`);
    const error = await openError(PostgresHistoryStore.open(postgresUrl(), { schema }));
    expect(error.code).toBe('not_a_history_store');
    expect(error.message).toContain('invoices');
    expect(await tables(schema)).toEqual(['invoices']);
  });

  it('reports a schema that lost one of its tables as corrupt', async () => {
    const schema = freshSchema();
    await (await PostgresHistoryStore.open(postgresUrl(), { schema })).close();
    await admin.query(`DROP TABLE "${schema}".issued_ids`);
    const error = await openError(PostgresHistoryStore.open(postgresUrl(), { schema }));
    expect(error.code).toBe('corrupt');
    expect(error.message).toContain('issued_ids');
  });

  it('fails with read_only for a role that may read but not write, naming the database without the password', async () => {
    const schema = freshSchema();
    await (await PostgresHistoryStore.open(postgresUrl(), { schema })).close();
    const role = `reader_${schema}`;
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'sekrit'`);
    await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
    await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
    const url = new URL(postgresUrl());
    url.username = role;
    url.password = 'sekrit';
    const error = await openError(PostgresHistoryStore.open(url.toString(), { schema }));
    expect(error.code).toBe('read_only');
    expect(error.path).toContain(schema);
    expect(error.message).not.toContain('sekrit');
  });

  it('fails with io, not a hang, when no server listens there', async () => {
    const error = await openError(
      PostgresHistoryStore.open('postgresql://acp:pw@localhost/postgres?host=/nonexistent-acp-socket-dir', {
        connectTimeoutMs: 2000,
      }),
    );
    expect(error.code).toBe('io');
    expect(error.message).toContain('nonexistent-acp-socket-dir');
    expect(error.message).not.toContain(':pw@');
  });

  it('rejects a schema name that is not a plain identifier with invalid_argument', async () => {
    const error = await openError(
      PostgresHistoryStore.open(postgresUrl(), { schema: 'x"; DROP TABLE y; --' }),
    );
    expect(error).toMatchObject({ code: 'invalid_argument', pointer: '/schema' });
  });
});
