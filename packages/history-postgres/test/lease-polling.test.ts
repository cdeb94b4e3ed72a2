import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLeases } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

describe('PostgresSessionLeases: asking for a lease another replica holds', () => {
  const closing: { close?(): Promise<void>; end?(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const item of closing.splice(0)) await (item.close?.() ?? item.end?.());
  });

  it('reports the holder without waiting for the holder’s write in flight (it takes no lock on the lease)', async () => {
    const schema = freshSchema('poll');
    const holder = await PostgresSessionLeases.open(postgresUrl(), { schema, maxConnections: 2 });
    // A lock wait on the poller's side fails (after 10 s) instead of hanging the test.
    const url = postgresUrl();
    const noWaiting = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c lock_timeout=10000')}`;
    const poller = await PostgresSessionLeases.open(noWaiting, { schema, maxConnections: 2 });
    closing.push(holder, poller);
    const held = await holder.acquire('s', 'holder', 60_000);
    expect(held).toMatchObject({ acquired: true });
    // A fenced append in flight holds a share lock on the lease row until it commits.
    const writer = new pg.Client({ connectionString: postgresUrl() });
    await writer.connect();
    closing.push(writer);
    await writer.query('BEGIN');
    await writer.query(`SELECT 1 FROM "${schema}".log_leases WHERE session_id = 's' FOR SHARE`);
    closing.unshift({ end: () => writer.query('ROLLBACK').then(() => undefined) });
    // Answered while that write is still open: a poller does not queue behind the holder's writes
    // (nor, locking the row itself, hold up the holder's renewals behind it).
    const asked = await poller.acquire('s', 'poller', 60_000);
    expect(asked).toMatchObject({ acquired: false, holder: { owner: 'holder', epoch: 1 } });
    await writer.query('COMMIT');
    expect(await holder.renew('s', 'holder', 1, 60_000)).toMatchObject({ owner: 'holder', epoch: 1 });
  });
});
