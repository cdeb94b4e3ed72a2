import type { HistoryStoreError } from '@acp-kit/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresHistoryStore, SCHEMA_VERSION } from '../src/index.js';
import { migrate } from '../src/schema.js';
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
      'log_claims',
      'log_entries',
      'log_issued_ids',
      'log_leases',
      'log_messages',
      'log_prompts',
      'log_sessions',
      'schema_migrations',
    ]);
    await (await PostgresHistoryStore.open(postgresUrl(), { schema })).close();
    const { rows } = await admin.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY 1`);
    expect(rows).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
  });

  it('migrates a version 1 schema to the current version, keeping its history', async () => {
    const schema = freshSchema();
    // A schema as the first release of this package left it, written by its functions.
    await migrate(admin, schema, 'test', 1);
    const s = `"${schema}"`;
    await admin.query(
      `INSERT INTO ${s}.sessions (session_id, cwd, created_at) VALUES ('s', '/w', '2026-01-01T00:00:00.000Z')`,
    );
    await admin.query(`SELECT ${s}.append_message('s', 'user_message', 'm', 'full', NULL, $1::text[])`, [
      [JSON.stringify({ type: 'text', text: 'hi' })],
    ]);
    await admin.query(
      `SELECT ${s}.append_message('s', 'agent_message', 'a', 'chunks', '{"k":1}', '{}'::text[])`,
    );
    await admin.query(`SELECT ${s}.append_chunk('s', 'agent_message', 'a', $1)`, [
      JSON.stringify({ type: 'text', text: 'one ' }),
    ]);
    await admin.query(`SELECT ${s}.append_chunk('s', 'agent_message', 'a', $1)`, [
      JSON.stringify({ type: 'text', text: 'two' }),
    ]);
    await admin.query(`INSERT INTO ${s}.issued_ids (session, message_id) VALUES (1, 'issued-only')`);
    const reopened = await PostgresHistoryStore.open(postgresUrl(), { schema });
    expect((await reopened.readMessages('s')).messages).toEqual([
      {
        seq: 1,
        kind: 'user_message',
        messageId: 'm',
        via: 'full',
        content: [{ type: 'text', text: 'hi' }],
        meta: null,
      },
      {
        seq: 2,
        kind: 'agent_message',
        messageId: 'a',
        via: 'chunks',
        content: [
          { type: 'text', text: 'one ' },
          { type: 'text', text: 'two' },
        ],
        meta: { k: 1 },
      },
    ]);
    // The log holds them in their replay form, claimed; the issued IDs stay issued.
    const log = await reopened.log.read('s');
    expect(log.entries.map((e) => e.update.sessionUpdate)).toEqual([
      'user_message',
      'agent_message',
      'agent_message_chunk',
      'agent_message_chunk',
    ]);
    expect(await reopened.log.isClaimed('s', { kind: 'agent_message', messageId: 'a' })).toBe(true);
    await expect(
      reopened.log.append('s', [
        {
          update: { sessionUpdate: 'user_message', messageId: 'm', content: [] } as never,
          claim: { kind: 'user_message', messageId: 'm' },
        },
      ]),
    ).rejects.toMatchObject({ code: 'duplicate_message' });
    const issued = await admin.query(`SELECT message_id FROM ${s}.log_issued_ids ORDER BY 1`);
    expect(issued.rows.map((row) => row.message_id)).toEqual(['a', 'issued-only', 'm']);
    // Later writes continue the same messages.
    await reopened.appendChunk('s', 'a', { type: 'text', text: '!' } as never);
    expect((await reopened.readMessages('s', { afterSeq: 1 })).messages[0]?.content).toHaveLength(3);
    await reopened.close();
    expect(await tables(schema)).toContain('log_entries');
    expect(await tables(schema)).not.toContain('messages');
    const { rows } = await admin.query(`SELECT max(version)::int AS v FROM "${schema}".schema_migrations`);
    expect(rows[0]).toEqual({ v: SCHEMA_VERSION });
  });

  it('reads messages the session log retained before version 6 as retained messages', async () => {
    const schema = freshSchema();
    await migrate(admin, schema, 'test', 5);
    const s = `"${schema}"`;
    await admin.query(
      `INSERT INTO ${s}.log_sessions (session_id, cwd, created_at, updated_at) VALUES ('s', '/w', 't', 't')`,
    );
    const bodies = [
      { sessionUpdate: 'user_message', messageId: 'u', content: [{ type: 'text', text: 'q' }] },
      { sessionUpdate: 'state_update', state: 'running' },
      { sessionUpdate: 'agent_message', messageId: 'a', content: [] },
      { sessionUpdate: 'agent_message_chunk', messageId: 'a', content: { type: 'text', text: 'x' } },
      {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'live',
        content: { type: 'text', text: 'not kept' },
      },
      { sessionUpdate: 'agent_message_chunk', messageId: 'a', content: { type: 'text', text: 'y' } },
    ].map((body) => JSON.stringify(body));
    await admin.query(
      `SELECT * FROM ${s}.log_append('s', $1::text[], $2::boolean[], $3::text[], $4::text[], 'ch', 'o')`,
      [bodies, [true, false, true, true, false, true], ['user_message', 'agent_message'], ['u', 'a']],
    );
    const store = await PostgresHistoryStore.open(postgresUrl(), { schema });
    const { messages } = await store.readMessages('s');
    expect(
      messages.map((m) => [
        m.seq,
        m.kind,
        m.messageId,
        m.via,
        m.content.map((b) => (b as { text: string }).text).join(''),
      ]),
    ).toEqual([
      [1, 'user_message', 'u', 'full', 'q'],
      [2, 'agent_message', 'a', 'chunks', 'xy'],
    ]);
    expect(await store.isRetained('s', 'live')).toBe(false);
    await store.close();
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
    await admin.query(`DROP TABLE "${schema}".log_issued_ids`);
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
