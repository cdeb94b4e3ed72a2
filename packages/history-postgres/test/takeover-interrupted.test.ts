import { HistoryStoreError } from '@acp-kit/sdk';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

type Update = { sessionUpdate: string; state?: string; stopReason?: string };
const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('a takeover that cannot end the turn the previous owner left', () => {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const close of open.splice(0).reverse()) await close();
  });

  const replica = async (schema: string, name: string) => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs: 60_000,
      // Nothing on a timer: the lease lapses when the test says, takeovers happen when it routes.
      renewals: 'manual',
      checkEveryMs: 3_600_000,
    });
    open.push(async () => {
      await ownership.close();
      await log.close();
    });
    return { log, ownership };
  };

  it('gives the session up when the database fails right after the lease was taken, so the next claim ends the interrupted turn (once)', async () => {
    const schema = freshSchema('takeover');
    const a = await replica(schema, 'a');
    const b = await replica(schema, 'b');
    const sessionId = 'sess_interrupted';
    await a.log.createSession({ sessionId, cwd: '/w' });
    await a.ownership.created(sessionId);
    // A's turn runs; then A stops renewing and its lease lapses in the database.
    await a.ownership.log.append(sessionId, [
      { update: { sessionUpdate: 'state_update', state: 'running' } as LogEntry['update'], retain: false },
    ]);
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    open.push(() => admin.end());
    await admin.query(
      `UPDATE "${schema}".log_leases SET expires_at = clock_timestamp() WHERE session_id = $1`,
      [sessionId],
    );

    // B takes the lease, and the database goes away before B could read how A left the session.
    vi.spyOn(b.log, 'lastState').mockRejectedValueOnce(
      new HistoryStoreError('io', 'cannot read the session: PostgreSQL failed (57P01)'),
    );
    const signal = new AbortController().signal;
    await expect(b.ownership.route(sessionId, text('first try'), signal)).rejects.toMatchObject({
      code: 'io',
    });

    // The next claim (here a prompt; a check of busy sessions or an owed idle alike) ends A's turn
    // before the session runs anything here.
    await expect(b.ownership.route(sessionId, text('second try'), signal)).resolves.toEqual({ to: 'here' });
    const states = (await b.log.read(sessionId, { limit: 100 })).entries
      .map((entry) => entry.update as unknown as Update)
      .filter((update) => update.sessionUpdate === 'state_update')
      .map((update) => `${update.state}${update.stopReason ? `/${update.stopReason}` : ''}`);
    expect(states).toEqual(['running', 'idle/error']);
    expect(b.ownership.leaseOf(sessionId)).toMatchObject({ owner: 'b' });
  });
});
