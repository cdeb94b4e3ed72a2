import type { NewRetainedMessage } from '@acp-kit/sdk/adapter';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteHistoryStore } from '../src/index.js';
import { tempDir, text } from './helpers.js';

const tmp = tempDir('durability');
afterAll(tmp.cleanup);

describe('SqliteHistoryStore across restarts', () => {
  it('keeps every session, message, chunk, replacement and meta after close and reopen', async () => {
    const path = tmp.file('restart.sqlite');
    const first = SqliteHistoryStore.open(path);
    await first.createSession({ sessionId: 'a', cwd: '/a', createdAt: '2026-01-01T00:00:00.000Z' });
    await first.createSession({ sessionId: 'gone', cwd: '/g' });
    await first.createSession({ sessionId: 'b', cwd: '/b' });
    await first.appendMessage('a', {
      kind: 'user_message',
      messageId: 'u1',
      content: [text('q')],
      meta: { k: 1 },
    });
    await first.appendMessage('a', { kind: 'agent_message', messageId: 'a1', content: [] });
    await first.appendChunk('a', 'a1', text('Pa'));
    await first.appendChunk('a', 'a1', text('ris'));
    await first.appendMessage('a', { kind: 'agent_thought', messageId: 't1', content: [text('draft')] });
    await first.replaceContent('a', { kind: 'agent_thought', messageId: 't1' }, [text('final')], {
      via: 'chunks',
    });
    await first.appendMessage('b', {
      kind: 'user_message',
      messageId: 'u1',
      content: [text('other session')],
    });
    await first.deleteSession('gone');
    const before = { a: await first.readMessages('a'), b: await first.readMessages('b') };
    await first.close();

    const second = SqliteHistoryStore.open(path);
    expect((await second.listSessions()).sessions.map((s) => s.sessionId)).toEqual(['a', 'b']);
    expect(await second.getSession('a')).toEqual({
      sessionId: 'a',
      cwd: '/a',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await second.readMessages('a')).toEqual(before.a);
    expect(await second.readMessages('b')).toEqual(before.b);
    expect(before.a.messages.map((m) => [m.messageId, m.via, m.content.length])).toEqual([
      ['u1', 'full', 1],
      ['a1', 'chunks', 2],
      ['t1', 'chunks', 1],
    ]);
    await second.appendChunk('a', 'a1', text('!'));
    expect(
      (await second.appendMessage('a', { kind: 'agent_message', messageId: 'a2', content: [] })).seq,
    ).toBe(4);
    await second.close();
  });

  it('never reissues an ID after reopening, whether it was issued or retained', async () => {
    const path = tmp.file('ids.sqlite');
    const first = SqliteHistoryStore.open(path);
    await first.createSession({ sessionId: 's', cwd: '/w' });
    const issued = new Set<string>();
    for (let i = 0; i < 300; i++) issued.add(await first.nextMessageId('s'));
    await first.appendMessage('s', { kind: 'user_message', messageId: 'native-7', content: [] });
    issued.add('native-7');
    await first.close();

    // A generator that first offers old IDs again (fewer than the store's retry budget), then fresh ones.
    const all = [...issued];
    const replayed = [...all.slice(0, 30), 'native-7', ...all.slice(-30)];
    let i = 0;
    const second = SqliteHistoryStore.open(path, { generateMessageId: () => replayed[i++] ?? `fresh-${i}` });
    const next = await second.nextMessageId('s');
    expect(issued.has(next)).toBe(false);
    expect(next).toMatch(/^fresh-/);
    await second.close();
  });

  it('streams 100k retained messages back in order without reading them in one page', async () => {
    const path = tmp.file('large.sqlite');
    const store = SqliteHistoryStore.open(path);
    await store.createSession({ sessionId: 's', cwd: '/w' });
    const total = 100_000;
    const batch = 10_000;
    for (let start = 0; start < total; start += batch) {
      const messages: NewRetainedMessage[] = [];
      for (let i = start; i < start + batch; i++) {
        messages.push({
          kind: i % 3 === 0 ? 'user_message' : i % 3 === 1 ? 'agent_message' : 'agent_thought',
          messageId: `m${i}`,
          content: [text(String(i))],
        });
      }
      await store.appendMessages('s', messages);
    }
    await store.close();

    const reopened = SqliteHistoryStore.open(path);
    let count = 0;
    let largestPage = 0;
    let afterSeq: number | null = 0;
    while (afterSeq !== null) {
      const page = await reopened.readMessages('s', { afterSeq, limit: 1000 });
      largestPage = Math.max(largestPage, page.messages.length);
      for (const message of page.messages) {
        if (message.seq !== count + 1 || message.messageId !== `m${count}`) {
          throw new Error(`out of order at ${count}: seq ${message.seq}, id ${message.messageId}`);
        }
        count++;
      }
      afterSeq = page.nextAfterSeq;
    }
    expect(count).toBe(total);
    expect(largestPage).toBe(1000);
    let streamed = 0;
    let last: unknown;
    for await (const message of reopened.messages('s')) {
      streamed++;
      last = message;
    }
    expect(streamed).toBe(total);
    expect(last).toMatchObject({
      seq: total,
      messageId: `m${total - 1}`,
      content: [text(String(total - 1))],
    });
    await reopened.close();
  }, 180_000); // a hang guard, not a speed check: 100k messages take a minute on a loaded 2-core machine

  it('applies a batch append all-or-nothing', async () => {
    const store = SqliteHistoryStore.open(tmp.file('batch.sqlite'));
    await store.createSession({ sessionId: 's', cwd: '/w' });
    await store.appendMessage('s', { kind: 'user_message', messageId: 'taken', content: [] });
    const batch: NewRetainedMessage[] = [
      { kind: 'agent_message', messageId: 'ok-1', content: [text('1')] },
      { kind: 'user_message', messageId: 'taken', content: [] },
    ];
    await expect(store.appendMessages('s', batch)).rejects.toMatchObject({ code: 'duplicate_message' });
    expect((await store.readMessages('s')).messages.map((m) => m.messageId)).toEqual(['taken']);
    expect(
      (await store.appendMessage('s', { kind: 'agent_message', messageId: 'ok-1', content: [] })).seq,
    ).toBe(2);
    await store.close();
  });

  it('lets a second store on the same file see committed messages', async () => {
    const path = tmp.file('shared.sqlite');
    const writer = SqliteHistoryStore.open(path);
    const reader = SqliteHistoryStore.open(path);
    await writer.createSession({ sessionId: 's', cwd: '/w' });
    await writer.appendMessage('s', { kind: 'user_message', messageId: 'u1', content: [text('hi')] });
    expect((await reader.readMessages('s')).messages).toHaveLength(1);
    await writer.close();
    await reader.close();
  });
});
