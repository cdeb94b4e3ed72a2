import { HistoryStoreError } from '@acp-kit/sdk';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';
import { hasPgBouncer, type PgBouncer, startPgBouncer } from '../src/testing/pgbouncer.js';
import { type ReplicationPair, startReplicationPair } from '../src/testing/replication-pair.js';

type Update = LogEntry['update'];
const chunk = (text: string) =>
  ({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text } }) as Update;
const has = (entries: LogEntry[], text: string) =>
  entries.some((entry) => (entry.update as { content?: { text?: string } }).content?.text === text);

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The test server's Unix socket directory and port, for pgbouncer's [databases] line. */
function testServer(): { host: string; port: number } {
  const url = new URL(postgresUrl());
  return { host: url.searchParams.get('host') ?? '127.0.0.1', port: Number(url.port || 5432) };
}

describe.skipIf(!hasPgBouncer())('the session log through PgBouncer', () => {
  const bouncers: PgBouncer[] = [];
  const logs: PostgresSessionLog[] = [];
  let pair: ReplicationPair | undefined;
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close().catch(() => undefined);
    for (const bouncer of bouncers.splice(0)) await bouncer.stop();
    await pair?.stop();
    pair = undefined;
  });

  it('refuses to open through transaction pooling, naming the mode and the fix', async () => {
    const bouncer = await startPgBouncer(testServer(), 'transaction');
    bouncers.push(bouncer);
    let caught: unknown;
    try {
      logs.push(await PostgresSessionLog.open(bouncer.urlFor('postgres'), { schema: freshSchema('pgb') }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HistoryStoreError);
    expect((caught as HistoryStoreError).code).toBe('invalid_argument');
    expect((caught as Error).message).toMatch(/transaction \(or statement\) pooling mode/);
    expect((caught as Error).message).toMatch(/pool_mode = session/);
  });

  it('works through session pooling: appends from one replica reach another live over LISTEN', async () => {
    const bouncer = await startPgBouncer(testServer(), 'session');
    bouncers.push(bouncer);
    const schema = freshSchema('pgb');
    const a = await PostgresSessionLog.open(bouncer.urlFor('postgres'), { schema, maxConnections: 3 });
    logs.push(a);
    const b = await PostgresSessionLog.open(bouncer.urlFor('postgres'), { schema, maxConnections: 3 });
    logs.push(b);
    await a.createSession({ sessionId: 's', cwd: '/w' });
    const seen: LogEntry[] = [];
    b.subscribe('s', 0, { entries: (batch) => seen.push(...batch) });
    for (let i = 0; i < 20; i++) await a.append('s', [{ update: chunk(`m${i}`) }]);
    await until(() => has(seen, 'm19'), 'live delivery through pgbouncer');
    expect(
      (await b.read('s')).entries.filter((entry) => entry.update.sessionUpdate === 'agent_message_chunk'),
    ).toHaveLength(20);
  });

  it('fails over through one session-pooling pgbouncer per server: moves to the promoted standby and never writes to the old primary when it is back', async () => {
    pair = await startReplicationPair({ synchronous: true });
    const { primary, standby } = pair;
    const toPrimary = await startPgBouncer({ host: '127.0.0.1', port: primary.port }, 'session');
    const toStandby = await startPgBouncer({ host: '127.0.0.1', port: standby.port }, 'session');
    bouncers.push(toPrimary, toStandby);
    const url = `postgres://acp@127.0.0.1:${toPrimary.port},127.0.0.1:${toStandby.port}/postgres?target_session_attrs=read-write`;
    const writer = await PostgresSessionLog.open(url, {
      maxConnections: 3,
      writeBehind: false,
      connectTimeoutMs: 3000,
    });
    logs.push(writer);
    const watcher = await PostgresSessionLog.open(url, {
      maxConnections: 2,
      writeBehind: false,
      connectTimeoutMs: 3000,
    });
    logs.push(watcher);
    await writer.createSession({ sessionId: 's', cwd: '/w' });
    const seen: LogEntry[] = [];
    watcher.subscribe('s', 0, { entries: (batch) => seen.push(...batch) });
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      await writer.append('s', [{ update: chunk(`before ${i}`) }]);
      acknowledged.push(`before ${i}`);
    }
    await until(() => has(seen, 'before 4'), 'live delivery before the failover');

    await primary.kill();
    pair.promote();
    const deadline = Date.now() + 60_000;
    for (let i = 0; i < 5; ) {
      try {
        await writer.append('s', [{ update: chunk(`after ${i}`) }]);
        acknowledged.push(`after ${i}`);
        i++;
      } catch (error) {
        expect(error).toBeInstanceOf(HistoryStoreError);
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(writer.connectionStatus()).toMatchObject({ host: `127.0.0.1:${toStandby.port}`, timeline: 2 });
    await until(() => has(seen, 'after 4'), 'live delivery after the failover');

    await primary.start();
    const fresh = await PostgresSessionLog.open(url, {
      maxConnections: 2,
      writeBehind: false,
      connectTimeoutMs: 3000,
    });
    logs.push(fresh);
    await fresh.append('s', [{ update: chunk('late') }]);
    acknowledged.push('late');
    expect(fresh.connectionStatus()).toMatchObject({ host: `127.0.0.1:${toStandby.port}` });
    const replay = (await fresh.read('s')).entries
      .map((entry) => (entry.update as { content?: { text?: string } }).content?.text)
      .filter((text) => text !== undefined);
    // Every acknowledged append once, in order (a failed attempt may have committed: then it
    // would appear here too, but every attempt here either failed before the failover or after).
    expect(replay.filter((text) => acknowledged.includes(text!))).toEqual(acknowledged);
  });
});
