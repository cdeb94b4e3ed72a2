import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/conversation/index.js';
import { MemoryHistoryStore, replayUpdates, retainedMessages } from '../../src/history/index.js';

const text = (value: string): ContentBlock => ({ type: 'text', text: value }) as ContentBlock;

describe('replayUpdates', () => {
  it('replays a full message as one update carrying its content and meta', () => {
    const updates = replayUpdates({
      seq: 1,
      kind: 'user_message',
      messageId: 'u1',
      via: 'full',
      content: [text('q')],
      meta: { m: 1 },
    });
    expect(updates).toEqual([
      { sessionUpdate: 'user_message', messageId: 'u1', content: [text('q')], _meta: { m: 1 } },
    ]);
  });

  it('replays a chunked message as a content reset followed by one chunk per block', () => {
    const updates = replayUpdates({
      seq: 2,
      kind: 'agent_thought',
      messageId: 't1',
      via: 'chunks',
      content: [text('a'), text('b')],
      meta: null,
    });
    expect(updates).toEqual([
      { sessionUpdate: 'agent_thought', messageId: 't1', content: [] },
      { sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: text('a') },
      { sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: text('b') },
    ]);
  });

  it('rebuilds the live conversation on a client however many times history is replayed', async () => {
    const history = new MemoryHistoryStore();
    await history.createSession({ sessionId: 's', cwd: '/w' });
    const client = new ConversationStore();
    const live = (update: Record<string, unknown>) =>
      client.apply({ sessionId: 's', update } as unknown as SessionNotification);

    const u1 = await history.nextMessageId('s');
    await history.appendMessage('s', {
      kind: 'user_message',
      messageId: u1,
      content: [text('q')],
      via: 'full',
    });
    live({ sessionUpdate: 'user_message', messageId: u1, content: [text('q')] });
    const a1 = await history.nextMessageId('s');
    await history.appendMessage('s', { kind: 'agent_message', messageId: a1, content: [], via: 'chunks' });
    for (const piece of ['Pa', 'ris']) {
      await history.appendChunk('s', { kind: 'agent_message', messageId: a1 }, text(piece));
      live({ sessionUpdate: 'agent_message_chunk', messageId: a1, content: text(piece) });
    }
    const expected = client.snapshot('s').messages;

    for (let round = 0; round < 3; round++) {
      for await (const message of retainedMessages(history, 's')) {
        for (const update of replayUpdates(message)) live(update as unknown as Record<string, unknown>);
      }
    }
    expect(client.snapshot('s').messages).toEqual(expected);
    expect(expected.map((m) => m.content.length)).toEqual([1, 2]);
  });
});

describe('replayUpdates output', () => {
  it('is valid against the v2 schema for every kind and replay preference', async () => {
    const { validate } = await import('@acp-kit/schema');
    const kinds = ['user_message', 'agent_message', 'agent_thought'] as const;
    for (const kind of kinds) {
      for (const via of ['full', 'chunks'] as const) {
        const updates = replayUpdates({
          seq: 1,
          kind,
          messageId: 'm1',
          via,
          content: [text('a'), text('b')],
          meta: { trace: 1 },
        });
        for (const update of updates) {
          const result = validate('SessionNotification', { sessionId: 's', update });
          expect(result.ok ? [] : result.issues, `${kind}/${via}: ${JSON.stringify(update)}`).toEqual([]);
        }
      }
    }
  });
});
