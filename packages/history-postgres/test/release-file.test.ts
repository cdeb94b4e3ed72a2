import { readFileSync } from 'node:fs';
import { LogHistoryStore } from '@acp-kit/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FixtureReading,
  readFixtureSessions,
} from '../../history-sqlite/test/fixtures/read-fixture-sessions.js';
import { PostgresSessionLog, SCHEMA_VERSION } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

// A pg_dump of a schema written by the schema-version-7 release, with what that release read back
// from it (see fixtures/make-release-dump.ts).
const DUMP = readFileSync(new URL('./fixtures/v7-history.sql', import.meta.url), 'utf8');
const EXPECTED = JSON.parse(
  readFileSync(new URL('./fixtures/v7-history.expected.json', import.meta.url), 'utf8'),
) as FixtureReading;
const SCHEMA = 'acp_release';

/** The URL of `database` on the test server. */
function urlOf(database: string): string {
  const url = new URL(postgresUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

async function run(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('opening a schema written by the schema-version-7 release', () => {
  // The dump names its schema, so it is restored into a database of its own.
  const database = freshSchema('release');
  beforeAll(async () => {
    await run(postgresUrl(), `CREATE DATABASE ${database}`);
    await run(urlOf(database), DUMP);
  });
  afterAll(() => run(postgresUrl(), `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

  it('is a version-7 schema (the test reads what the release wrote)', async () => {
    const client = new pg.Client({ connectionString: urlOf(database) });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT max(version) AS v FROM ${SCHEMA}.schema_migrations`);
      expect(Number(rows[0].v)).toBe(7);
    } finally {
      await client.end();
    }
  });

  it('reads every session, log entry and retained message back as the release did', async () => {
    const log = await PostgresSessionLog.open(urlOf(database), { schema: SCHEMA, maxConnections: 2 });
    try {
      const history = new LogHistoryStore(log);
      expect(await readFixtureSessions(log, (id) => history.messages(id))).toEqual(EXPECTED);
      expect(SCHEMA_VERSION).toBe(7);
    } finally {
      await log.close();
    }
  });

  it('keeps claims and issued IDs, and the log continues after the entries it has', async () => {
    const candidates = ['gen_1', 'gen_2', 'gen_3', 'gen_4', 'native-7', 'fresh'];
    let i = 0;
    const log = await PostgresSessionLog.open(urlOf(database), {
      schema: SCHEMA,
      maxConnections: 2,
      generateMessageId: () => candidates[i++ % candidates.length]!,
    });
    try {
      const history = new LogHistoryStore(log);
      expect(await log.nextMessageId('sess_a')).toBe('fresh');
      await expect(
        history.appendMessage('sess_b', { kind: 'user_message', messageId: 'b1', content: [] }),
      ).rejects.toMatchObject({ code: 'duplicate_message' });
      const chunk = {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'gen_5',
        content: { type: 'text', text: '!' },
      };
      expect(await log.append('sess_b', [{ update: chunk as never }])).toEqual({ first: 9, last: 9 });
      const [, answer] = (await history.readMessages('sess_b')).messages;
      expect(answer?.content.map((block) => (block as { text: string }).text)).toEqual([
        'Let me ',
        'look.',
        '!',
      ]);
    } finally {
      await log.close();
    }
  });
});
