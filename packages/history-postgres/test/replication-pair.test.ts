import { createServer } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, type ReplicationPair, startReplicationPair } from '../src/testing/replication-pair.js';

let pair: ReplicationPair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

async function inRecovery(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0]!.r;
  } finally {
    await client.end();
  }
}

describe('the replication pair used by the failover tests', () => {
  it('starts the standby on another port when its port was taken by a plain listener after it was chosen', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as { port: number }).port;
    try {
      pair = await startReplicationPair({ synchronous: false, ports: { standby: taken } });
      expect(pair.standby.port).not.toBe(taken);
      expect(await inRecovery(pair.standby.url)).toBe(true);
      expect(pair.standby.log()).toMatch(/could not bind/i);
    } finally {
      squatter.close();
    }
  });

  it("never takes another PostgreSQL server's answer for its own start (the standby's port is the primary's)", async () => {
    const port = await freePort();
    pair = await startReplicationPair({ synchronous: false, ports: { primary: port, standby: port } });
    expect(pair.primary.port).toBe(port);
    expect(pair.standby.port).not.toBe(port);
    expect(await inRecovery(pair.primary.url)).toBe(false);
    expect(await inRecovery(pair.standby.url)).toBe(true);
  });

  it('promotes the standby: it leaves recovery and takes writes', async () => {
    pair = await startReplicationPair({ synchronous: false });
    await pair.primary.kill();
    pair.promote();
    expect(await inRecovery(pair.standby.url)).toBe(false);
    const client = new pg.Client({ connectionString: pair.standby.url });
    await client.connect();
    try {
      await client.query('CREATE TABLE written_after_promotion (n int)');
    } finally {
      await client.end();
    }
  });

  it('says why a promotion failed, with the end of the standby log', async () => {
    pair = await startReplicationPair({ synchronous: false });
    await pair.primary.kill();
    pair.promote();
    // A second promotion finds no standby: pg_ctl refuses, and the error carries its words.
    expect(() => pair!.promote()).toThrow(
      /pg_ctl promote failed after \d+ ms: .*not in standby mode[\s\S]*standby log/,
    );
  });
});
