import type { NewLogEntry } from '@acp-kit/sdk/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

type Update = NewLogEntry['update'];
const chunk = (n: number): NewLogEntry => ({
  update: {
    sessionUpdate: 'agent_message_chunk',
    messageId: 'm',
    content: { type: 'text', text: `c${n}` },
  } as unknown as Update,
});
const opening = (id: string): NewLogEntry => ({
  update: { sessionUpdate: 'agent_message', messageId: id, content: [] } as unknown as Update,
  claim: { kind: 'agent_message', messageId: id },
});
const text = (update: Update): string =>
  (update as { content?: { text?: string } }).content?.text ?? (update as { messageId: string }).messageId;

describe('PostgresSessionLog: appends made while one is in flight are written together', () => {
  const logs: PostgresSessionLog[] = [];
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
  });
  const open = async () => {
    const log = await PostgresSessionLog.open(postgresUrl(), {
      schema: freshSchema('batch'),
      maxConnections: 4,
    });
    logs.push(log);
    await log.createSession({ sessionId: 's', cwd: '/w' });
    return log;
  };

  it('numbers 200 appends made without waiting in the order they were made, each with its own range', async () => {
    const log = await open();
    const ranges = await Promise.all(
      Array.from({ length: 200 }, (_, n) => log.append('s', n % 3 === 0 ? [chunk(n), chunk(n)] : [chunk(n)])),
    );
    let next = 1;
    ranges.forEach((range, n) => {
      const size = n % 3 === 0 ? 2 : 1;
      expect(range).toEqual({ first: next, last: next + size - 1 });
      next += size;
    });
    const page = await log.read('s', { limit: 1000 });
    expect(page.lastSeq).toBe(next - 1);
    const expected = ranges.flatMap((_, n) => (n % 3 === 0 ? [`c${n}`, `c${n}`] : [`c${n}`]));
    expect(page.entries.map((entry) => text(entry.update))).toEqual(expected);
  });

  it('fails only the append whose claim is taken when it shares a batch with others, which are written in order', async () => {
    const log = await open();
    await log.append('s', [opening('taken')]);
    const results = await Promise.allSettled([
      log.append('s', [chunk(1)]),
      log.append('s', [chunk(2)]),
      log.append('s', [opening('taken')]),
      log.append('s', [opening('fresh')]),
      log.append('s', [chunk(3)]),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'duplicate_message' });
    const page = await log.read('s');
    expect(page.entries.map((entry) => text(entry.update))).toEqual(['taken', 'c1', 'c2', 'fresh', 'c3']);
    expect(page.entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('hands batched appends to a follower on another log object in order, once each', async () => {
    const log = await open();
    const other = await PostgresSessionLog.open(postgresUrl(), { schema: log.schema, maxConnections: 2 });
    logs.push(other);
    const seen: number[] = [];
    let resolveDone: () => void;
    const done = new Promise<void>((resolve) => {
      resolveDone = resolve;
    });
    other.subscribe('s', 0, {
      entries(batch) {
        for (const entry of batch) seen.push(entry.seq);
        if (seen.length >= 100) resolveDone();
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(Array.from({ length: 100 }, (_, n) => log.append('s', [chunk(n)])));
    await done;
    expect(seen).toEqual(Array.from({ length: 100 }, (_, n) => n + 1));
  });
});
