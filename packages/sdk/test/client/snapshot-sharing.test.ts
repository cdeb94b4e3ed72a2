import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/index.js';
import { chunk, SESSION, text, texts, upsert } from './helpers.js';

describe('snapshot sharing', () => {
  it('shows each snapshot the content it had when taken, whatever came later and whenever it is read', () => {
    const store = new ConversationStore();
    const taken = [];
    store.apply(chunk('agent_message', 'a1', text('a')));
    taken.push(store.snapshot(SESSION));
    store.apply(chunk('agent_message', 'a1', text('b')));
    taken.push(store.snapshot(SESSION));
    store.apply(upsert('agent_message', 'a1', [text('x')]));
    taken.push(store.snapshot(SESSION));
    store.apply(chunk('agent_message', 'a1', text('y')));
    taken.push(store.snapshot(SESSION));
    store.apply(upsert('agent_message', 'a1', null));
    taken.push(store.snapshot(SESSION));
    // Read only now, after every later change.
    expect(taken.map((s) => texts(s)[0])).toEqual([
      'agent_message:a1=a',
      'agent_message:a1=a|b',
      'agent_message:a1=x',
      'agent_message:a1=x|y',
      'agent_message:a1=',
    ]);
    for (const snapshot of taken) expect(Object.isFrozen(snapshot.messages[0]?.content)).toBe(true);
  });

  it('keeps unchanged messages and their content arrays identical across snapshots', () => {
    const store = new ConversationStore();
    store.applyBatch([upsert('user_message', 'u1', [text('q')]), chunk('agent_message', 'a1', text('x'))]);
    const first = store.snapshot(SESSION);
    const content = first.messages[0]?.content;
    store.apply(chunk('agent_message', 'a1', text('y')));
    const second = store.snapshot(SESSION);
    expect(second.messages[0]).toBe(first.messages[0]);
    expect(second.messages[0]?.content).toBe(content);
    expect(texts(second)).toEqual(['user_message:u1=q', 'agent_message:a1=x|y']);
  });

  it('gives message views that read, copy and serialise like plain frozen objects', () => {
    const store = new ConversationStore();
    store.apply(chunk('agent_message', 'a1', text('a')));
    store.apply(chunk('agent_message', 'a1', text('b')));
    const [message] = store.snapshot(SESSION).messages;
    const plain = {
      key: 'agent_message:a1',
      kind: 'agent_message',
      messageId: 'a1',
      content: [text('a'), text('b')],
      meta: null,
      origin: 'agent',
      localId: null,
      error: undefined,
      position: 0,
    };
    expect(message).toStrictEqual(plain);
    expect({ ...message }).toStrictEqual(plain);
    expect(JSON.parse(JSON.stringify(message))).toEqual(JSON.parse(JSON.stringify(plain)));
    expect(Object.keys(message ?? {})).toEqual(Object.keys(plain));
    expect(Object.isFrozen(message)).toBe(true);
    expect(() => {
      (message as { content: unknown }).content = [];
    }).toThrow(TypeError);
  });
});
