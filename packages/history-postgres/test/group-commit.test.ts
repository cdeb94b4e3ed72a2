import type { NewLogEntry } from '@acp-kit/sdk/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLeases, PostgresSessionLog, type SessionLease } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

type Update = NewLogEntry['update'];
const chunk = (text: string): NewLogEntry => ({
  update: {
    sessionUpdate: 'agent_message_chunk',
    messageId: 'm',
    content: { type: 'text', text },
  } as unknown as Update,
});
const opening = (id: string): NewLogEntry => ({
  update: { sessionUpdate: 'agent_message', messageId: id, content: [] } as unknown as Update,
  claim: { kind: 'agent_message', messageId: id },
});
const text = (update: Update): string =>
  (update as { content?: { text?: string } }).content?.text ?? (update as { messageId: string }).messageId;

describe('PostgresSessionLog: appends of several sessions made at once are written by one call', () => {
  const closing: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const item of closing.splice(0)) await item.close();
  });
  const open = async (sessions: readonly string[]) => {
    const log = await PostgresSessionLog.open(postgresUrl(), {
      schema: freshSchema('group'),
      maxConnections: 4,
    });
    closing.push(log);
    for (const sessionId of sessions) await log.createSession({ sessionId, cwd: '/w' });
    return log;
  };

  it('keeps each of 40 sessions, each appending and awaiting 15 times at once, numbered in its own order', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `s${i}`);
    const log = await open(ids);
    const ranges = await Promise.all(
      ids.map(async (sessionId) => {
        const got: { first: number; last: number }[] = [];
        for (let n = 0; n < 15; n++) {
          got.push(
            await log.append(
              sessionId,
              n % 4 === 0
                ? [chunk(`${sessionId}.${n}a`), chunk(`${sessionId}.${n}b`)]
                : [chunk(`${sessionId}.${n}`)],
            ),
          );
        }
        return got;
      }),
    );
    for (const [i, sessionId] of ids.entries()) {
      let next = 1;
      for (const [n, range] of ranges[i]!.entries()) {
        const size = n % 4 === 0 ? 2 : 1;
        expect(range).toEqual({ first: next, last: next + size - 1 });
        next += size;
      }
      const page = await log.read(sessionId, { limit: 100 });
      expect(page.entries.map((entry) => entry.seq)).toEqual(
        Array.from({ length: next - 1 }, (_, k) => k + 1),
      );
      expect(page.entries.map((entry) => text(entry.update))).toEqual(
        Array.from({ length: 15 }, (_, n) =>
          n % 4 === 0 ? [`${sessionId}.${n}a`, `${sessionId}.${n}b`] : [`${sessionId}.${n}`],
        ).flat(),
      );
    }
  });

  it('fails only the refused appends of a call (a taken claim, an unknown session) and writes the others', async () => {
    const log = await open(['a', 'b', 'c']);
    await log.append('b', [opening('taken')]);
    // Made in one turn, so they are queued for the same call.
    const results = await Promise.allSettled([
      log.append('a', [chunk('a1')]),
      log.append('b', [opening('taken')]),
      log.append('nobody', [chunk('n1')]),
      log.append('c', [opening('fresh'), chunk('c1')]),
      log.append('b', [chunk('b1')]),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'duplicate_message' });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'session_not_found' });
    expect(results[3]).toMatchObject({ value: { first: 1, last: 2 } });
    expect(results[4]).toMatchObject({ value: { first: 2, last: 2 } });
    expect((await log.read('a')).entries.map((e) => text(e.update))).toEqual(['a1']);
    expect((await log.read('b')).entries.map((e) => text(e.update))).toEqual(['taken', 'b1']);
    expect((await log.read('c')).entries.map((e) => text(e.update))).toEqual(['fresh', 'c1']);
  });

  it('refuses only the fenced appends whose lease is not held, in a call with others that hold theirs', async () => {
    const log = await open(['a', 'b', 'c']);
    const leases = await PostgresSessionLeases.open(postgresUrl(), { schema: log.schema, maxConnections: 2 });
    closing.push(leases);
    const held = await Promise.all(['a', 'b', 'c'].map((id) => leases.acquire(id, 'me', 30_000)));
    const lease = (i: number) => {
      const result = held[i]!;
      if (!result.acquired) throw new Error('not acquired');
      return result.lease;
    };
    const results = await Promise.allSettled([
      log.appendAsOwner('a', [chunk('a1')], lease(0)),
      log.appendAsOwner('b', [chunk('b1')], { owner: 'me', epoch: lease(1).epoch + 1 }),
      log.appendAsOwner('c', [chunk('c1')], lease(2)),
      log.append('b', [chunk('b2')]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'locked' });
    expect((await log.read('b')).entries.map((e) => text(e.update))).toEqual(['b2']);
  });

  it('never deadlocks fenced writes of many sessions against renewals of the same leases', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `s${String(i).padStart(2, '0')}`);
    const log = await open(ids);
    const leases = await PostgresSessionLeases.open(postgresUrl(), { schema: log.schema, maxConnections: 2 });
    closing.push(leases);
    const held: SessionLease[] = [];
    for (const id of ids) {
      const result = await leases.acquire(id, 'me', 60_000);
      if (!result.acquired) throw new Error('not acquired');
      held.push(result.lease);
    }
    let writing = true;
    const renewals: number[] = [];
    const renewing = (async () => {
      // Renew in reverse order of the IDs, the order most likely to cross the writes' order.
      const reversed = [...held].reverse();
      while (writing) renewals.push((await leases.renewAll('me', reversed, 60_000)).length);
    })();
    await Promise.all(
      held.map(async (lease) => {
        for (let n = 0; n < 20; n++) await log.appendAsOwner(lease.sessionId, [chunk(`${n}`)], lease);
      }),
    );
    writing = false;
    await renewing;
    expect(renewals.length).toBeGreaterThan(0);
    expect(new Set(renewals)).toEqual(new Set([ids.length]));
    for (const id of ids) expect((await log.read(id)).lastSeq).toBe(20);
  });
});
