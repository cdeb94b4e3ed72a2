import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import { PostgresSessionLeases, PostgresSessionLog } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgresSessionLeases: one owner per session, taken over when the lease lapses', () => {
  const open: PostgresSessionLeases[] = [];
  afterEach(async () => {
    for (const leases of open.splice(0)) await leases.close();
  });
  const replicas = async (count: number) => {
    const schema = freshSchema('lease');
    for (let i = 0; i < count; i++)
      open.push(await PostgresSessionLeases.open(postgresUrl(), { schema, maxConnections: 2 }));
    return open.slice(-count);
  };

  it('gives a free session to exactly one of several replicas asking at once', async () => {
    const leases = await replicas(3);
    const results = await Promise.all(leases.map((l, i) => l.acquire('s', `r${i}`, 30_000)));
    const winners = results.filter((r) => r.acquired);
    expect(winners).toHaveLength(1);
    const owner = winners[0]!.acquired ? winners[0]!.lease.owner : '';
    for (const r of results) if (!r.acquired) expect(r.holder.owner).toBe(owner);
    expect((await leases[0]!.holder('s'))?.owner).toBe(owner);
  });

  it('renews for its holder at the same epoch, refuses others until it lapses, then hands it over with a new epoch', async () => {
    const [a, b] = await replicas(2);
    const first = await a!.acquire('s', 'a', 800);
    expect(first).toMatchObject({ acquired: true, takenOver: false, lease: { owner: 'a', epoch: 1 } });
    const again = await a!.acquire('s', 'a', 800);
    expect(again).toMatchObject({ acquired: true, lease: { epoch: 1 } });
    expect(await b!.acquire('s', 'b', 800)).toMatchObject({ acquired: false, holder: { owner: 'a' } });
    await sleep(1000);
    expect(await b!.holder('s')).toBeUndefined();
    const taken = await b!.acquire('s', 'b', 800);
    expect(taken).toMatchObject({ acquired: true, takenOver: true, lease: { owner: 'b', epoch: 2 } });
    // The old holder's renewal at its old epoch fails: it learns it lost the session.
    expect(await a!.renew('s', 'a', 1, 800)).toBeUndefined();
  });

  it('keeps a held lease alive past its lease time, and frees it at once on release', async () => {
    const [a, b] = await replicas(2);
    const result = await a!.acquire('s', 'a', 600);
    if (!result.acquired) throw new Error('expected the lease');
    const held = a!.hold(result.lease, { ttlMs: 600 });
    await sleep(1500);
    expect(await b!.acquire('s', 'b', 600)).toMatchObject({
      acquired: false,
      holder: { owner: 'a', epoch: 1 },
    });
    await held.release();
    expect(await b!.acquire('s', 'b', 600)).toMatchObject({
      acquired: true,
      lease: { owner: 'b', epoch: 2 },
    });
  });

  it('tells a holder that missed its renewals that it lost the session', async () => {
    const [a, b] = await replicas(2);
    const result = await a!.acquire('s', 'a', 300);
    if (!result.acquired) throw new Error('expected the lease');
    let lostReason: unknown;
    // Renewing far less often than the lease lasts: another replica takes over in between.
    a!.hold(result.lease, { ttlMs: 300, renewEveryMs: 1200, onLost: (reason) => (lostReason = reason) });
    await sleep(500);
    expect(await b!.acquire('s', 'b', 5000)).toMatchObject({ acquired: true, takenOver: true });
    await sleep(1200);
    expect(String(lostReason)).toContain('taken over');
  });

  it('is taken over by a survivor after its holder is killed with SIGKILL mid-lease', async () => {
    const [b] = await replicas(1);
    const ttl = 1000;
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./fixtures/lease-holder.ts', import.meta.url)),
        postgresUrl(),
        b!.schema,
        's',
        String(ttl),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await once(createInterface({ input: holder.stdout! }), 'line')) as [string];
      expect(line).toBe('held 1');
      expect(await b!.acquire('s', 'survivor', ttl)).toMatchObject({ acquired: false });
      await sleep(ttl * 2); // renewals keep it held well past one lease time
      expect(await b!.acquire('s', 'survivor', ttl)).toMatchObject({ acquired: false });
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      let taken: Awaited<ReturnType<PostgresSessionLeases['acquire']>> | undefined;
      while (!taken?.acquired) {
        await sleep(25);
        taken = await b!.acquire('s', 'survivor', ttl);
      }
      // How long that takes is a figure of the bench, not an assertion here.
      expect(taken).toMatchObject({ takenOver: true, lease: { owner: 'survivor', epoch: 2 } });
    } finally {
      if (holder.exitCode === null) holder.kill('SIGKILL');
    }
  });
});

describe('PostgresSessionLog.appendAsOwner: appends fenced by the lease', () => {
  it('appends for the holder at its epoch, and refuses with locked once the lease was taken over', async () => {
    const schema = freshSchema('fence');
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 2 });
    const leases = await PostgresSessionLeases.open(postgresUrl(), { schema, maxConnections: 2 });
    try {
      await log.createSession({ sessionId: 's', cwd: '/w' });
      const running = { update: { sessionUpdate: 'state_update', state: 'running' } as LogEntry['update'] };
      const a = await leases.acquire('s', 'a', 300);
      if (!a.acquired) throw new Error('expected the lease');
      expect(await log.appendAsOwner('s', [running], a.lease)).toEqual({ first: 1, last: 1 });
      await sleep(400);
      const b = await leases.acquire('s', 'b', 5000);
      expect(b).toMatchObject({ acquired: true, takenOver: true });
      await expect(log.appendAsOwner('s', [running], a.lease)).rejects.toMatchObject({
        code: 'locked',
        sessionId: 's',
      });
      if (!b.acquired) throw new Error('expected the lease');
      expect(await log.appendAsOwner('s', [running], b.lease)).toEqual({ first: 2, last: 2 });
      expect((await log.read('s')).lastSeq).toBe(2);
    } finally {
      await leases.close();
      await log.close();
    }
  });
});
