import { HistoryStoreError } from '@acp-kit/sdk';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLeases, PostgresSessionLog, type SessionLease } from '../src/index.js';
import { type ReplicationPair, startReplicationPair } from '../src/testing/replication-pair.js';

type Update = LogEntry['update'];
const chunk = (text: string) =>
  ({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text } }) as Update;
const TTL_MS = 2000;

/** Retries `attempt` while it fails with anything but `locked` (the failover is under way). */
async function outcome<T>(attempt: () => Promise<T>): Promise<T | HistoryStoreError> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(HistoryStoreError);
      if ((error as HistoryStoreError).code === 'locked' || Date.now() > deadline)
        return error as HistoryStoreError;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Takes `sessionId`'s lease for `owner`, polling until it is free or lapsed. */
async function take(leases: PostgresSessionLeases, sessionId: string, owner: string): Promise<SessionLease> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await outcome(() => leases.acquire(sessionId, owner, TTL_MS));
    if (!(result instanceof HistoryStoreError) && result.acquired) return result.lease;
    if (Date.now() > deadline) throw new Error(`${owner} never got the lease on ${sessionId}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The session's entries and its lease row, read straight from one server's tables. */
async function tables(url: string, sessionId: string): Promise<{ texts: string[]; lease: unknown }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: string }>(
      `SELECT e.body FROM acp_history.log_entries e JOIN acp_history.log_sessions s ON s.ordinal = e.session
       WHERE s.session_id = $1 ORDER BY e.seq`,
      [sessionId],
    );
    const lease = await client.query(
      'SELECT owner, epoch::int AS epoch FROM acp_history.log_leases WHERE session_id = $1',
      [sessionId],
    );
    return {
      texts: rows.map((row) => (JSON.parse(row.body) as { content: { text: string } }).content.text),
      lease: lease.rows[0],
    };
  } finally {
    await client.end();
  }
}

describe('leases and fencing across a PostgreSQL failover', () => {
  let pair: ReplicationPair | undefined;
  const closers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const closer of closers.splice(0)) await closer.close().catch(() => undefined);
    await pair?.stop();
    pair = undefined;
  });

  it('an owner that lost its connection in the failover cannot write with its old lease once another replica took the session on the new primary; a session nobody took it writes again', async () => {
    pair = await startReplicationPair({ synchronous: true });
    const open = { maxConnections: 2, writeBehind: false, connectTimeoutMs: 3000 } as const;
    const [logA, logB] = [
      await PostgresSessionLog.open(pair.multiHostUrl, open),
      await PostgresSessionLog.open(pair.multiHostUrl, open),
    ];
    const [leasesA, leasesB] = [
      await PostgresSessionLeases.open(pair.multiHostUrl, open),
      await PostgresSessionLeases.open(pair.multiHostUrl, open),
    ];
    closers.push(logA, logB, leasesA, leasesB);
    for (const sessionId of ['taken', 'kept']) await logA.createSession({ sessionId, cwd: '/w' });
    const taken = await take(leasesA, 'taken', 'A');
    const kept = await take(leasesA, 'kept', 'A');
    await logA.appendAsOwner('taken', [{ update: chunk('A before') }], taken);
    await logA.appendAsOwner('kept', [{ update: chunk('A before') }], kept);

    // A's connections die with the primary; the standby is promoted with A's leases on it.
    await pair.primary.kill();
    pair.promote();

    // B takes one of A's sessions once A's lease lapses (the database's clock) on the new primary.
    const byB = await take(leasesB, 'taken', 'B');
    expect(byB).toMatchObject({ owner: 'B', epoch: taken.epoch + 1 });
    await logB.appendAsOwner('taken', [{ update: chunk('B after') }], byB);

    // A, reconnected, still believes it owns the session: every write with its old lease is refused.
    const stale = await outcome(() => logA.appendAsOwner('taken', [{ update: chunk('A stale') }], taken));
    expect(stale).toMatchObject({ code: 'locked', sessionId: 'taken' });
    expect(await leasesA.renew('taken', 'A', taken.epoch, TTL_MS)).toBeUndefined();
    const again = await leasesA.acquire('taken', 'A', TTL_MS);
    expect(again).toMatchObject({ acquired: false, holder: { owner: 'B', epoch: byB.epoch } });
    await logB.appendAsOwner('taken', [{ update: chunk('B again') }], byB);

    // The session nobody took: A takes it again on the new primary and writes under that lease.
    const keptAgain = await take(leasesA, 'kept', 'A');
    expect(keptAgain.epoch).toBeGreaterThanOrEqual(kept.epoch);
    await logA.appendAsOwner('kept', [{ update: chunk('A after') }], keptAgain);

    // From the new primary's tables: one owner at a time, and nothing from the stale lease.
    expect(await tables(pair.standby.url, 'taken')).toEqual({
      texts: ['A before', 'B after', 'B again'],
      lease: { owner: 'B', epoch: taken.epoch + 1 },
    });
    expect(await tables(pair.standby.url, 'kept')).toEqual({
      texts: ['A before', 'A after'],
      lease: { owner: 'A', epoch: keptAgain.epoch },
    });
  });
  it('fails a write while no host accepts writes (the primary gone, the standby not promoted yet) as transient, so an owner retries it after the promotion instead of dropping it', async () => {
    pair = await startReplicationPair({ synchronous: true });
    const open = { maxConnections: 2, writeBehind: false, connectTimeoutMs: 3000 } as const;
    const log = await PostgresSessionLog.open(pair.multiHostUrl, open);
    const leases = await PostgresSessionLeases.open(pair.multiHostUrl, open);
    closers.push(log, leases);
    await log.createSession({ sessionId: 'turn', cwd: '/w' });
    const lease = await take(leases, 'turn', 'A');
    await log.appendAsOwner('turn', [{ update: chunk('before') }], lease);

    await pair.primary.kill();
    // Only the standby answers, read-only: the write fails, and the failure says "try again later"
    // (a final read_only here left a turn's closing idle unwritten for good). A pooled connection
    // whose backend has not yet noticed the kill may fail first with 57P01 (seen on a loaded
    // machine); that failure must be transient too, and the next attempt reaches host selection.
    const failures: unknown[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const failed = await log.appendAsOwner('turn', [{ update: chunk('during') }], lease).then(
        () => undefined,
        (error: unknown) => error,
      );
      failures.push(failed);
      if (String((failed as Error | undefined)?.message).includes('no host accepts writes')) break;
    }
    for (const failed of failures) {
      expect(failed).toBeInstanceOf(HistoryStoreError);
      expect(failed).toMatchObject({ code: 'io', transient: true });
    }
    expect(String((failures.at(-1) as Error).message)).toContain('no host accepts writes');

    pair.promote();
    const written = await outcome(() => log.appendAsOwner('turn', [{ update: chunk('after') }], lease));
    expect(written).not.toBeInstanceOf(HistoryStoreError);
    expect((await tables(pair.standby.url, 'turn')).texts).toEqual(['before', 'after']);
  });
});
