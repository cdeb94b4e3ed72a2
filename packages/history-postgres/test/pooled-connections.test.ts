import type { HistoryStoreError } from '@acp-kit/sdk';
import { describe, expect, it } from 'vitest';
import { PostgresSessionLog, type PostgresSessionLogOptions } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server process behind the pooled connection the log's next statement runs on. */
async function backendPid(log: PostgresSessionLog): Promise<number> {
  const [row] = await log.queryView<{ pid: number }>('SELECT pg_backend_pid() AS pid', [], 's');
  return row!.pid;
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
    const log = await openLog({ idleTimeoutMs: 100 });
    try {
      const before = await backendPid(log);
      await sleep(1_000);
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
