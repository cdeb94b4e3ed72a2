import { describe, expect, it } from 'vitest';
import { type ConversationChange, ConversationStore } from '../../src/client/conversation/index.js';
import { chunk, note, SESSION, state, text, upsert } from './helpers.js';

function recording(store: ConversationStore): ConversationChange[][] {
  const calls: ConversationChange[][] = [];
  store.subscribe((changes) => calls.push([...changes]));
  return calls;
}

describe('ConversationStore listeners', () => {
  it('calls listeners once per applied batch with what changed', () => {
    const store = new ConversationStore();
    const calls = recording(store);
    store.applyBatch([
      chunk('agent_message', 'a1', text('x')),
      chunk('agent_message', 'a1', text('y')),
      state('running'),
      note({ sessionUpdate: 'tool_call_update', toolCallId: 't1' }),
      note({ sessionUpdate: 'agent_message', messageId: 'b' }, 'other'),
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual([
      {
        sessionId: SESSION,
        messageKeys: ['agent_message:a1'],
        orderChanged: true,
        stateChanged: true,
        toolCallIds: ['t1'],
        planIds: [],
        contextUsageChanged: false,
      },
      expect.objectContaining({ sessionId: 'other', messageKeys: ['agent_message:b'] }),
    ]);
  });

  it('reports both keys when a local entry turns into the agent message', () => {
    const store = new ConversationStore();
    const localId = store.addPending(SESSION, [text('q')]);
    store.apply(upsert('user_message', 'u1', [text('q')]));
    const calls = recording(store);
    store.resolvePending(localId, 'u1');
    expect(calls[0]?.[0]).toMatchObject({ orderChanged: true });
    expect(calls[0]?.[0]?.messageKeys).toEqual(
      expect.arrayContaining([`local:${localId}`, 'user_message:u1']),
    );
  });

  it('does not call listeners for a batch that changed nothing', () => {
    const store = new ConversationStore();
    const calls = recording(store);
    store.applyBatch([note({ sessionUpdate: '_ignored' })]);
    store.setConnection(SESSION, 'connected');
    expect(calls).toEqual([]);
  });

  it('stops calling a listener after unsubscribe', () => {
    const store = new ConversationStore();
    const calls: unknown[] = [];
    const unsubscribe = store.subscribe((changes) => calls.push(changes));
    store.apply(state('running'));
    unsubscribe();
    store.apply(state('idle'));
    expect(calls).toHaveLength(1);
  });

  it('still notifies every listener and keeps the update when one listener throws', () => {
    const store = new ConversationStore();
    let secondCalled = false;
    store.subscribe(() => {
      throw new Error('ui bug');
    });
    store.subscribe(() => {
      secondCalled = true;
    });
    expect(() => store.apply(state('running'))).toThrow('ui bug');
    expect(secondCalled).toBe(true);
    expect(store.snapshot(SESSION).state.state).toBe('running');
  });
});
