import { describe, expect, it } from 'vitest';
import { HistoryStoreError } from '../../src/history/errors.js';
import { LogFollowers } from '../../src/history/log-followers.js';
import type { LogEntry, LogPage, ReadLogOptions } from '../../src/history/session-log.js';

const SESSION = 'sess_followers';

const entry = (seq: number): LogEntry =>
  ({
    seq,
    retain: true,
    update: {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'msg_a',
      content: { type: 'text', text: `${seq};` },
    },
  }) as unknown as LogEntry;

/** A log of `count` entries whose reads fail with `failure` while `failing()` holds. */
function flakyLog(count: number, failing: () => HistoryStoreError | undefined) {
  const entries = Array.from({ length: count }, (_, i) => entry(i + 1));
  let reads = 0;
  return {
    entries,
    get reads() {
      return reads;
    },
    read: async (_sessionId: string, options: ReadLogOptions = {}): Promise<LogPage> => {
      reads += 1;
      const failure = failing();
      if (failure !== undefined) throw failure;
      const after = options.afterSeq ?? 0;
      const limit = options.limit ?? entries.length;
      return { entries: entries.filter((e) => e.seq > after).slice(0, limit), lastSeq: entries.length };
    },
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('LogFollowers', () => {
  it('keeps a follower whose catch-up read fails while the storage is unreachable, and delivers every entry once it is back', async () => {
    let down = true;
    const log = flakyLog(5, () =>
      down ? new HistoryStoreError('io', 'the database is restarting') : undefined,
    );
    const followers = new LogFollowers();
    const seen: number[] = [];
    const errors: unknown[] = [];
    followers.subscribe(
      SESSION,
      0,
      { entries: (batch) => seen.push(...batch.map((e) => e.seq)), error: (e) => errors.push(e) },
      log.read,
    );
    await until(() => log.reads >= 2, 'the read to be tried again');
    expect(errors).toEqual([]);
    down = false;
    await until(() => seen.length === 5, 'the backlog');
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(errors).toEqual([]);
  });

  it('reads a gap again when the first read of it fails, so a published batch after an outage is not lost', async () => {
    let down = false;
    const log = flakyLog(3, () => (down ? new HistoryStoreError('locked', 'busy') : undefined));
    const followers = new LogFollowers();
    const seen: number[] = [];
    const errors: unknown[] = [];
    followers.subscribe(
      SESSION,
      0,
      { entries: (batch) => seen.push(...batch.map((e) => e.seq)), error: (e) => errors.push(e) },
      log.read,
    );
    await until(() => seen.length === 3, 'the backlog');
    // Two appends land; only the second is published here (the first one's publication was lost).
    log.entries.push(entry(4), entry(5));
    down = true;
    followers.published(SESSION, [entry(5)]);
    const readsBefore = log.reads;
    await until(() => log.reads >= readsBefore + 2, 'the gap to be read again');
    down = false;
    await until(() => seen.length === 5, 'the gap');
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(errors).toEqual([]);
  });

  it('hands each published batch over in the microtask queue, after what was queued before it and before what is queued after it', async () => {
    const log = flakyLog(1, () => undefined);
    const followers = new LogFollowers();
    const order: string[] = [];
    followers.subscribe(
      SESSION,
      0,
      { entries: (batch) => order.push(`entries ${batch.map((e) => e.seq).join(',')}`) },
      log.read,
    );
    await until(() => order.length === 1, 'the backlog');
    log.entries.push(entry(2), entry(3));
    queueMicrotask(() => order.push('queued before 2'));
    followers.published(SESSION, [entry(2)]);
    void Promise.resolve().then(() => order.push('queued between'));
    followers.published(SESSION, [entry(3)]);
    queueMicrotask(() => order.push('queued after 3'));
    // Nothing is handed over in the call that publishes.
    expect(order).toEqual(['entries 1']);
    await until(() => order.length === 6, 'the hand-overs');
    expect(order).toEqual([
      'entries 1',
      'queued before 2',
      'entries 2',
      'queued between',
      'entries 3',
      'queued after 3',
    ]);
  });

  it('ends a follower whose session is gone or whose store closed, with that error', async () => {
    for (const code of ['session_not_found', 'closed'] as const) {
      const log = flakyLog(2, () => new HistoryStoreError(code, code));
      const followers = new LogFollowers();
      const errors: unknown[] = [];
      followers.subscribe(SESSION, 0, { entries: () => undefined, error: (e) => errors.push(e) }, log.read);
      await until(() => errors.length === 1, `the ${code} error`);
      expect((errors[0] as HistoryStoreError).code).toBe(code);
      expect(log.reads).toBe(1);
    }
  });
});
