import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/conversation/index.js';
import { chunk, note, SESSION, text, texts, upsert } from './helpers.js';

describe('ConversationStore upsert rules', () => {
  it('appends chunks to a message in the order received', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([chunk('agent_message', 'a1', text('Hel')), chunk('agent_message', 'a1', text('lo'))]);
    expect(texts(store.snapshot(SESSION))).toEqual(['agent_message:a1=Hel|lo']);
  });

  it('replaces everything stored, chunks included, when an update carries a content array', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([
      chunk('agent_message', 'a1', text('draft')),
      upsert('agent_message', 'a1', [text('final')]),
      chunk('agent_message', 'a1', text('+more')),
    ]);
    expect(texts(store.snapshot(SESSION))).toEqual(['agent_message:a1=final|+more']);
  });

  it('leaves content unchanged when an update omits content', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([upsert('agent_thought', 't1', [text('thinking')]), upsert('agent_thought', 't1')]);
    expect(texts(store.snapshot(SESSION))).toEqual(['agent_thought:t1=thinking']);
  });

  it.each([
    ['null', null],
    ['an empty array', []],
  ])('clears content when an update carries %s', (_label, content) => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([upsert('user_message', 'u1', [text('x')]), upsert('user_message', 'u1', content)]);
    expect(store.snapshot(SESSION).messages[0]?.content).toEqual([]);
  });

  it('creates an empty message for a metadata-only update with an unknown ID', () => {
    const store = new ConversationStore({ unstable: true });
    store.apply(upsert('agent_message', 'a9'));
    const [message] = store.snapshot(SESSION).messages;
    expect(message).toMatchObject({ kind: 'agent_message', messageId: 'a9', content: [], origin: 'agent' });
  });

  it('keeps a separate ID space per message kind', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([
      upsert('user_message', 'same', [text('u')]),
      upsert('agent_message', 'same', [text('a')]),
      chunk('agent_thought', 'same', text('t')),
    ]);
    expect(texts(store.snapshot(SESSION))).toEqual([
      'user_message:same=u',
      'agent_message:same=a',
      'agent_thought:same=t',
    ]);
  });

  it('orders the feed by when each ID was first reported, not by later updates', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([
      chunk('agent_message', 'a1', text('1')),
      upsert('user_message', 'u1', [text('2')]),
      upsert('agent_message', 'a1', [text('1b')]),
    ]);
    expect(texts(store.snapshot(SESSION))).toEqual(['agent_message:a1=1b', 'user_message:u1=2']);
    expect(store.snapshot(SESSION).messages.map((m) => m.position)).toEqual([0, 1]);
  });

  it('keeps sessions apart', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([
      note({ sessionUpdate: 'agent_message', messageId: 'a', content: [text('one')] }, 's1'),
      note({ sessionUpdate: 'agent_message', messageId: 'a', content: [text('two')] }, 's2'),
    ]);
    expect(texts(store.snapshot('s1'))).toEqual(['agent_message:a=one']);
    expect(texts(store.snapshot('s2'))).toEqual(['agent_message:a=two']);
    expect(store.sessionIds()).toEqual(['s1', 's2']);
  });

  it('merges _meta by top-level key: omitted or null keeps it, a key set to null is removed', () => {
    const store = new ConversationStore({ unstable: true });
    const meta = () => store.snapshot(SESSION).messages[0]?.meta;
    store.apply(upsert('agent_message', 'a1', undefined, { _meta: { a: 1, b: { deep: true } } }));
    store.apply(upsert('agent_message', 'a1', undefined, { _meta: { b: { other: 1 }, c: 3 } }));
    expect(meta()).toEqual({ a: 1, b: { other: 1 }, c: 3 });
    store.apply(upsert('agent_message', 'a1', [text('x')]));
    expect(meta()).toEqual({ a: 1, b: { other: 1 }, c: 3 });
    store.apply(upsert('agent_message', 'a1', undefined, { _meta: { a: null } }));
    expect(meta()).toEqual({ b: { other: 1 }, c: 3 });
    store.apply(upsert('agent_message', 'a1', undefined, { _meta: null }));
    expect(meta()).toEqual({ b: { other: 1 }, c: 3 });
  });

  it('does not let a chunk _meta patch the stored message metadata', () => {
    const store = new ConversationStore({ unstable: true });
    store.apply(upsert('agent_message', 'a1', [], { _meta: { keep: 1 } }));
    store.apply(
      note({ sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: text('x'), _meta: null }),
    );
    expect(store.snapshot(SESSION).messages[0]?.meta).toEqual({ keep: 1 });
  });

  it('never mutates the content array it received', () => {
    const store = new ConversationStore({ unstable: true });
    const content = [text('a')];
    store.apply(upsert('agent_message', 'a1', content));
    store.apply(chunk('agent_message', 'a1', text('b')));
    expect(content).toEqual([text('a')]);
  });

  it('returns frozen snapshots that later updates do not change', () => {
    const store = new ConversationStore({ unstable: true });
    store.apply(chunk('agent_message', 'a1', text('a')));
    const before = store.snapshot(SESSION);
    store.apply(chunk('agent_message', 'a1', text('b')));
    expect(texts(before)).toEqual(['agent_message:a1=a']);
    expect(Object.isFrozen(before.messages)).toBe(true);
    expect(Object.isFrozen(before.messages[0]?.content)).toBe(true);
    expect(texts(store.snapshot(SESSION))).toEqual(['agent_message:a1=a|b']);
  });

  it('returns the same snapshot object while nothing changed and shares unchanged messages', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([upsert('user_message', 'u1', [text('q')]), chunk('agent_message', 'a1', text('x'))]);
    const first = store.snapshot(SESSION);
    expect(store.snapshot(SESSION)).toBe(first);
    store.apply(chunk('agent_message', 'a1', text('y')));
    const second = store.snapshot(SESSION);
    expect(second).not.toBe(first);
    expect(second.messages[0]).toBe(first.messages[0]);
    expect(second.state).toBe(first.state);
  });

  it('returns an empty snapshot for a session it has never seen', () => {
    const store = new ConversationStore({ unstable: true });
    expect(store.snapshot('nope')).toMatchObject({
      messages: [],
      state: { state: 'unknown', completedTurns: 0 },
    });
    expect(store.sessionIds()).toEqual([]);
  });

  it('drops a session and its local submissions on forget', () => {
    const store = new ConversationStore({ unstable: true });
    const localId = store.addPending(SESSION, [text('q')]);
    store.apply(upsert('agent_message', 'a1', [text('x')]));
    store.forget(SESSION);
    expect(store.snapshot(SESSION).messages).toEqual([]);
    expect(() => store.resolvePending(localId, 'u1')).toThrow(/no submission/);
  });
});
