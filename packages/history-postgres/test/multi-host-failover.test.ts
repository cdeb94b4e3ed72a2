import { HistoryStoreError } from '@acp-kit/sdk';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { parseConnectionTargets } from '../src/connection-targets.js';
import { type ReplicationPair, startReplicationPair } from '../src/testing/replication-pair.js';

type Update = LogEntry['update'];
const chunk = (text: string) =>
  ({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text } }) as Update;

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Appends until one succeeds (the failover is under way meanwhile); returns the attempts that failed. */
async function appendRetrying(log: PostgresSessionLog, text: string): Promise<number> {
  let failures = 0;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await log.append('s', [{ update: chunk(text) }]);
      return failures;
    } catch (error) {
      expect(error).toBeInstanceOf(HistoryStoreError);
      if (Date.now() > deadline) throw error;
      failures++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function texts(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: string }>(
      `SELECT e.body FROM acp_history.log_entries e JOIN acp_history.log_sessions s ON s.ordinal = e.session
       WHERE s.session_id = 's' ORDER BY e.seq`,
    );
    return rows
      .map((row) => JSON.parse(row.body) as { content?: { text?: string } })
      .flatMap((update) => (update.content?.text === undefined ? [] : [update.content.text]));
  } finally {
    await client.end();
  }
}

describe('connection strings with several hosts, read as libpq reads them', () => {
  it('pairs URL hosts with their ports, and socket directories in ?host= with ?port=', () => {
    const url = parseConnectionTargets(
      'postgres://u:secret@db1:5433,db2,[::1]:6000/app?target_session_attrs=read-write&sslmode=disable',
    );
    expect(url.hosts).toEqual([
      { host: 'db1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(url.checkWritable).toBe(true);
    expect(url.description).not.toContain('secret');
    const sockets = parseConnectionTargets('postgresql://acp@localhost/postgres?host=%2Fa,%2Fb&port=1,2');
    expect(sockets.hosts).toEqual([
      { host: '/a', port: 1 },
      { host: '/b', port: 2 },
    ]);
  });

  it('reads key=value settings with a host list and one port for all', () => {
    const keywords = parseConnectionTargets(
      "host=a,b port=5433 dbname=app user=acp password='p w' target_session_attrs=primary",
    );
    expect(keywords.hosts).toEqual([
      { host: 'a', port: 5433 },
      { host: 'b', port: 5433 },
    ]);
    expect(keywords.base).toMatchObject({ user: 'acp', password: 'p w', database: 'app' });
  });

  it('refuses target_session_attrs a writer cannot use, and mismatched host and port lists', () => {
    for (const text of [
      'postgres://a,b/db?target_session_attrs=standby',
      'host=a,b,c port=1,2 dbname=x',
      'postgres://a:99999/db',
    ]) {
      let caught: unknown;
      try {
        parseConnectionTargets(text);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(HistoryStoreError);
      expect((caught as HistoryStoreError).code).toBe('invalid_argument');
    }
  });
});

describe('a session log on a primary and a streaming standby, given both hosts', () => {
  let pair: ReplicationPair | undefined;
  const logs: PostgresSessionLog[] = [];
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close().catch(() => undefined);
    await pair?.stop();
    pair = undefined;
  });

  it('writes to the primary whichever host is listed first, moves to the promoted standby by itself after the primary is SIGKILLed, and never writes to the old primary when it comes back as a primary', async () => {
    pair = await startReplicationPair({ synchronous: true });
    const { primary, standby } = pair;
    // The standby first: the writable host is found by asking, not by position.
    const url = `postgres://acp@127.0.0.1:${standby.port},127.0.0.1:${primary.port}/postgres?target_session_attrs=read-write`;
    const log = await PostgresSessionLog.open(url, { maxConnections: 3, writeBehind: false });
    logs.push(log);
    const watcher = await PostgresSessionLog.open(url, { maxConnections: 2, writeBehind: false });
    logs.push(watcher);
    await log.createSession({ sessionId: 's', cwd: '/w' });
    const seen: LogEntry[] = [];
    watcher.subscribe('s', 0, { entries: (batch) => seen.push(...batch) });
    for (let i = 0; i < 5; i++) await log.append('s', [{ update: chunk(`before ${i}`) }]);
    expect(log.connectionStatus()).toMatchObject({ host: `127.0.0.1:${primary.port}`, writable: true });
    await until(
      () => seen.some((entry) => JSON.stringify(entry.update).includes('before 4')),
      'the follower to see the first appends',
    );

    await primary.kill();
    pair.promote();
    const failed = await appendRetrying(log, 'after');
    for (let i = 0; i < 4; i++) await log.append('s', [{ update: chunk(`after ${i}`) }]);
    expect(log.connectionStatus()).toMatchObject({
      host: `127.0.0.1:${standby.port}`,
      writable: true,
      timeline: 2,
    });
    expect(log.connectionStatus().hostChanges).toBe(1);
    // The follower's LISTEN connection moved too: live delivery resumes on the new primary.
    await until(
      () => seen.some((entry) => JSON.stringify(entry.update).includes('after 3')),
      'live delivery after the failover',
    );
    expect(failed).toBeGreaterThanOrEqual(0);

    // The old primary comes back as a primary on its old address, listed after the new one.
    await primary.start();
    const late = await PostgresSessionLog.open(
      `postgres://acp@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`,
      { maxConnections: 2, writeBehind: false },
    );
    logs.push(late);
    await late.append('s', [{ update: chunk('late') }]);
    expect(late.connectionStatus()).toMatchObject({ host: `127.0.0.1:${standby.port}`, timeline: 2 });
    const onNew = await texts(standby.url);
    expect(onNew).toEqual([
      ...[0, 1, 2, 3, 4].map((i) => `before ${i}`),
      'after',
      ...[0, 1, 2, 3].map((i) => `after ${i}`),
      'late',
    ]);
    // Nothing written after the failover reached the stale server.
    expect(await texts(primary.url)).toEqual([0, 1, 2, 3, 4].map((i) => `before ${i}`));
  });
});

/**
 * Four writers append as fast as they can, each to a session of its own, through a multi-host
 * string; the primary is SIGKILLed while appends are in flight and the standby promoted. Returns
 * how many acknowledged appends the promoted standby lacks, and checks that none is there twice.
 */
async function acknowledgedLostInFailover(
  synchronous: boolean,
): Promise<{ acknowledged: number; lost: number }> {
  const pair = await startReplicationPair({ synchronous });
  const logs: PostgresSessionLog[] = [];
  try {
    const log = await PostgresSessionLog.open(pair.multiHostUrl, {
      maxConnections: 4,
      writeBehind: false,
      connectTimeoutMs: 3000,
    });
    logs.push(log);
    const sessions = ['w0', 'w1', 'w2', 'w3'];
    for (const sessionId of sessions) await log.createSession({ sessionId, cwd: '/w' });
    const acked = new Map<string, string[]>(sessions.map((id) => [id, []]));
    let killed = false;
    const writers = sessions.map(async (sessionId) => {
      for (let i = 0; !killed; i++) {
        const text = `${sessionId}-${i}`;
        try {
          await log.append(sessionId, [{ update: chunk(text) }]);
          // Acknowledged, also when it returns while the kill is under way: it must survive too.
          acked.get(sessionId)!.push(text);
        } catch {
          return; // the primary is gone: this append's outcome is unknown, so it is not counted
        }
      }
    });
    await until(() => [...acked.values()].every((texts) => texts.length >= 50), 'appends under way');
    killed = true;
    await pair.primary.kill();
    await Promise.all(writers);
    pair.promote();
    const reader = await PostgresSessionLog.open(pair.multiHostUrl, {
      maxConnections: 2,
      writeBehind: false,
      connectTimeoutMs: 3000,
    });
    logs.push(reader);
    let acknowledged = 0;
    let lost = 0;
    for (const sessionId of sessions) {
      const page = await reader.read(sessionId, { limit: 100_000 }).catch((error: HistoryStoreError) => {
        if (error.code === 'session_not_found') return { entries: [] as LogEntry[] }; // created after the last replicated commit
        throw error;
      });
      const stored = page.entries
        .map((entry) => (entry.update as { content?: { text?: string } }).content?.text)
        .filter((text): text is string => text !== undefined);
      expect(new Set(stored).size).toBe(stored.length); // nothing twice
      const present = new Set(stored);
      const mine = acked.get(sessionId)!;
      acknowledged += mine.length;
      lost += mine.filter((text) => !present.has(text)).length;
    }
    return { acknowledged, lost };
  } finally {
    for (const log of logs) await log.close().catch(() => undefined);
    await pair.stop();
  }
}

describe('acknowledged appends across a failover', () => {
  it('loses none with synchronous replication (synchronous_standby_names, synchronous_commit = remote_apply)', async () => {
    for (let round = 0; round < 3; round++) {
      const { acknowledged, lost } = await acknowledgedLostInFailover(true);
      console.log(`synchronous replication, round ${round + 1}: ${acknowledged} acknowledged, ${lost} lost`);
      expect(lost).toBe(0);
    }
  });

  it('measures the window of asynchronous replication: acknowledged appends the promoted standby lacks', async () => {
    const figures: number[] = [];
    for (let round = 0; round < 3; round++) {
      const { acknowledged, lost } = await acknowledgedLostInFailover(false);
      console.log(`asynchronous replication, round ${round + 1}: ${acknowledged} acknowledged, ${lost} lost`);
      expect(lost).toBeLessThanOrEqual(acknowledged);
      figures.push(lost);
    }
    console.log(
      `asynchronous replication: lost per failover ${figures.join(', ')} (max ${Math.max(...figures)})`,
    );
  });
});
