import type { SessionLog } from '@acp-kit/sdk';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

type Update = LogEntry['update'];
const chunk = (messageId: string, text: string) =>
  ({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } }) as Update;

/** Follows a session and resolves `until(n)` once n entries arrived. */
function follow(log: SessionLog, sessionId: string, afterSeq = 0) {
  const seen: LogEntry[] = [];
  let failure: unknown;
  const waiters: (() => void)[] = [];
  const subscription = log.subscribe(sessionId, afterSeq, {
    entries(batch) {
      seen.push(...batch);
      for (const w of waiters.splice(0)) w();
    },
    error(error) {
      failure = error;
      for (const w of waiters.splice(0)) w();
    },
  });
  const until = async (done: () => boolean, what: string, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (have ${seen.length})`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return {
    seen,
    subscription,
    failure: () => failure,
    count: (n: number) => until(() => seen.length >= n, `${n} entries`),
    failed: () => until(() => failure !== undefined, 'the subscription to fail'),
  };
}

describe('PostgresSessionLog across replicas (one log object per process, one database)', () => {
  const open: SessionLog[] = [];
  afterEach(async () => {
    for (const log of open.splice(0)) await log.close();
  });
  const replicas = async (count: number) => {
    const schema = freshSchema('live');
    const logs: PostgresSessionLog[] = [];
    for (let i = 0; i < count; i++)
      logs.push(await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 }));
    open.push(...logs);
    return logs;
  };

  it('delivers appends made on two other replicas to a follower live, each once, in log order', async () => {
    const [a, b, c] = await replicas(3);
    await a!.createSession({ sessionId: 's', cwd: '/w' });
    await a!.append('s', [{ update: chunk('m', 'before') }]);
    const onC = follow(c!, 's');
    await onC.count(1);
    const writes = [a!, b!].map((log, r) =>
      (async () => {
        for (let i = 0; i < 30; i++)
          await log.append('s', [{ update: chunk('m', `${r}:${i}`) }, { update: chunk('m', `${r}:${i}'`) }]);
      })(),
    );
    await Promise.all(writes);
    await onC.count(121);
    expect(onC.seen.map((e) => e.seq)).toEqual(Array.from({ length: 121 }, (_, i) => i + 1));
    const stored = await a!.read('s', { limit: 4096 });
    expect(onC.seen).toEqual(stored.entries);
    // Each append's two entries stay together in every replica's view.
    for (let i = 1; i < onC.seen.length; i += 2) {
      const first = (onC.seen[i]!.update as { content: { text: string } }).content.text;
      const second = (onC.seen[i + 1]!.update as { content: { text: string } }).content.text;
      expect(second).toBe(`${first}'`);
    }
    onC.subscription.close();
  });

  it('ends followers on every replica when the session is deleted on one', async () => {
    const [a, b] = await replicas(2);
    await a!.createSession({ sessionId: 's', cwd: '/w' });
    await a!.append('s', [{ update: chunk('m', 'x') }]);
    const onB = follow(b!, 's');
    await onB.count(1);
    await a!.deleteSession('s');
    await onB.failed();
    expect(onB.failure()).toMatchObject({ code: 'session_not_found' });
  });

  it('misses nothing when its LISTEN connection is cut: it reconnects and catches up', async () => {
    const [a, b] = await replicas(2);
    await a!.createSession({ sessionId: 's', cwd: '/w' });
    const onB = follow(b!, 's');
    await a!.append('s', [{ update: chunk('m', '0') }]);
    await onB.count(1);
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
         WHERE query LIKE 'LISTEN "acp_log_${b!.schema}"'`,
      );
      expect(rows.length).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    for (let i = 1; i <= 10; i++) await a!.append('s', [{ update: chunk('m', String(i)) }]);
    await onB.count(11);
    expect(onB.seen.map((e) => e.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    onB.subscription.close();
  });

  it('gets an append whose notification it never heard: the audit finds the session ahead and reads it', async () => {
    const [a, b] = await replicas(2);
    await a!.createSession({ sessionId: 's', cwd: '/w' });
    const onB = follow(b!, 's');
    await a!.append('s', [{ update: chunk('m', '0') }]);
    await onB.count(1);
    // An append committed without its NOTIFY: to B it is as if the notification was lost (sent
    // while B reconnected, or dropped with a failed read).
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    try {
      const s = `"${b!.schema}"`;
      await admin.query(
        `WITH u AS (UPDATE ${s}.log_sessions SET last_seq = last_seq + 1 WHERE session_id = 's' RETURNING ordinal, last_seq)
         INSERT INTO ${s}.log_entries (session, seq, retain, body) SELECT ordinal, last_seq, true, $1 FROM u`,
        [JSON.stringify(chunk('m', 'unheard'))],
      );
    } finally {
      await admin.end();
    }
    // Nothing else is appended: only the audit can bring it to B.
    await onB.count(2);
    expect(onB.seen.map((e) => [e.seq, (e.update as { content: { text: string } }).content.text])).toEqual([
      [1, '0'],
      [2, 'unheard'],
    ]);
    onB.subscription.close();
  });

  it('lets one replica claim a message ID that several try to claim at once', async () => {
    const logs = await replicas(3);
    await logs[0]!.createSession({ sessionId: 's', cwd: '/w' });
    const prompt = {
      update: { sessionUpdate: 'user_message', messageId: 'p1', content: [] } as unknown as Update,
      claim: { kind: 'user_message', messageId: 'p1' } as const,
    };
    const results = await Promise.allSettled(
      logs.flatMap((log) => [log.append('s', [prompt]), log.append('s', [prompt])]),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await logs[2]!.read('s')).lastSeq).toBe(1);
  });
});
