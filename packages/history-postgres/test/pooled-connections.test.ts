import type { HistoryStoreError } from '@acp-kit/sdk';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresSessionLog, type PostgresSessionLogOptions } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The server process behind the pooled connection the log's next statement runs on: the log runs
 * a statement of its schema, and the server, asked on a connection of the test's own, names the
 * backends whose last statement that was (the log's schema is fresh, so only the log's). The
 * test's connection is opened first, so the question follows the log's statement at once: a
 * connection the pool closes when idle is still there to be named.
 */
async function backendPid(log: PostgresSessionLog): Promise<number> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    await log.getSession('s');
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND position($1 IN query) > 0',
      [log.schema],
    );
    expect(rows).toHaveLength(1);
    return rows[0]!.pid;
  } finally {
    await client.end();
  }
}

async function openLog(options: PostgresSessionLogOptions = {}): Promise<PostgresSessionLog> {
  // One connection, so every statement runs on the same one while it stays open.
  const log = await PostgresSessionLog.open(postgresUrl(), {
    schema: freshSchema(),
    maxConnections: 1,
    ...options,
  });
  await log.createSession({ sessionId: 's', cwd: '/w' });
  return log;
}

describe('pooled connections of the PostgreSQL session log', () => {
  it('stay open through a quiet spell longer than the driver default (10 s), keeping their prepared statements', async () => {
    const log = await openLog();
    try {
      const before = await backendPid(log);
      await sleep(11_000);
      expect(await backendPid(log)).toBe(before);
    } finally {
      await log.close();
    }
  });

  it('are closed after idleTimeoutMs when one is given, and the next statement reconnects', async () => {
    // Long enough that the question right after a statement finds its connection still open on a
    // loaded machine; the sleep is several times longer, so the pool has closed it by then.
    const log = await openLog({ idleTimeoutMs: 1_000 });
    try {
      const before = await backendPid(log);
      await sleep(3_000);
      expect(await backendPid(log)).not.toBe(before);
      await log.append('s', [
        { update: { sessionUpdate: 'state_update', state: 'running' } as never, retain: false },
      ]);
    } finally {
      await log.close();
    }
  });

  it.each([
    ['idleTimeoutMs', -1],
    ['idleTimeoutMs', 1.5],
    ['connectTimeoutMs', Number.NaN],
    ['maxConnections', 0],
  ] as const)('refuses %s = %s with invalid_argument at its pointer', async (name, value) => {
    const error = await PostgresSessionLog.open(postgresUrl(), { schema: freshSchema(), [name]: value }).then(
      () => undefined,
      (caught: unknown) => caught as HistoryStoreError,
    );
    expect(error?.code).toBe('invalid_argument');
    expect(error?.pointer).toBe(`/${name}`);
    expect(error?.message).toContain(`/${name}: expected`);
  });
});
