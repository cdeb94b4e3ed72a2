import type { SessionNotification } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/conversation/index.js';
import { chunk, SESSION, state, text, texts, upsert } from './helpers.js';

const live: SessionNotification[] = [
  upsert('user_message', 'u1', [text('capital of France?')]),
  state('running'),
  chunk('agent_thought', 't1', text('easy')),
  chunk('agent_message', 'a1', text('Par')),
  chunk('agent_message', 'a1', text('is')),
  state('idle', { stopReason: 'end_turn' }),
];

/** What an agent sends on `session/resume` with `replayFrom: {type: 'start'}`: resets, then chunks. */
const replayByChunks: SessionNotification[] = [
  upsert('user_message', 'u1', []),
  chunk('user_message', 'u1', text('capital of France?')),
  upsert('agent_thought', 't1', []),
  chunk('agent_thought', 't1', text('easy')),
  upsert('agent_message', 'a1', []),
  chunk('agent_message', 'a1', text('Par')),
  chunk('agent_message', 'a1', text('is')),
];

const replayByFullUpdates: SessionNotification[] = [
  upsert('user_message', 'u1', [text('capital of France?')]),
  upsert('agent_thought', 't1', [text('easy')]),
  upsert('agent_message', 'a1', [text('Par'), text('is')]),
];

describe('ConversationStore replay of retained history', () => {
  it.each([
    ['chunks after a content reset', replayByChunks],
    ['full updates', replayByFullUpdates],
  ])('gives the same conversation however often history is replayed as %s', (_label, replay) => {
    const store = new ConversationStore();
    store.applyBatch(live);
    const before = texts(store.snapshot(SESSION));
    for (let i = 0; i < 3; i++) store.applyBatch(replay);
    expect(texts(store.snapshot(SESSION))).toEqual(before);
    expect(before).toEqual([
      'user_message:u1=capital of France?',
      'agent_thought:t1=easy',
      'agent_message:a1=Par|is',
    ]);
  });

  it('rebuilds the same conversation in a fresh store from replay alone', () => {
    const original = new ConversationStore();
    original.applyBatch(live);
    const fresh = new ConversationStore();
    fresh.applyBatch(replayByChunks);
    expect(fresh.snapshot(SESSION).messages).toEqual(original.snapshot(SESSION).messages);
  });

  it('recognises a submission it resolved earlier when that message is replayed', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('capital of France?')]);
    store.resolvePending(localId, 'u1');
    store.applyBatch(live);
    store.applyBatch(replayByChunks);
    const mine = store.snapshot(SESSION).messages.filter((m) => m.localId === localId);
    expect(mine).toMatchObject([{ messageId: 'u1', origin: 'agent', content: [text('capital of France?')] }]);
    expect(store.snapshot(SESSION).messages).toHaveLength(3);
  });

  it('keeps a live-only message that replay omits, and does not count replay as a new turn', () => {
    const store = new ConversationStore();
    store.applyBatch([...live, upsert('user_message', 'cmd', [text('/clear')])]);
    store.applyBatch([...replayByChunks, state('idle', { stopReason: 'end_turn' })]);
    expect(store.snapshot(SESSION).messages.map((m) => m.messageId)).toEqual(['u1', 't1', 'a1', 'cmd']);
    expect(store.snapshot(SESSION).state.completedTurns).toBe(1);
  });
});
