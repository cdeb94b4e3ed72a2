import { describe, expect, it } from 'vitest';
import { type ConversationDiagnostic, ConversationStore } from '../../src/client/conversation/index.js';
import { note, SESSION, state } from './helpers.js';

describe('ConversationStore session state', () => {
  it('counts one completed turn for running then idle with a stop reason', () => {
    const store = new ConversationStore();
    store.applyBatch([
      state('running'),
      state('idle', { stopReason: 'end_turn', usage: { totalTokens: 5 } }),
    ]);
    expect(store.snapshot(SESSION).state).toEqual({
      state: 'idle',
      stopReason: 'end_turn',
      usage: { totalTokens: 5 },
      completedTurns: 1,
      connection: 'connected',
    });
  });

  it('does not count a repeated idle as a second completion', () => {
    const store = new ConversationStore();
    store.applyBatch([
      state('running'),
      state('idle', { stopReason: 'end_turn' }),
      state('idle', { stopReason: 'end_turn' }),
      state('idle'),
    ]);
    expect(store.snapshot(SESSION).state).toMatchObject({ completedTurns: 1, stopReason: 'end_turn' });
  });

  it('does not count the first idle seen after attaching to a session', () => {
    const store = new ConversationStore();
    store.apply(state('idle', { stopReason: 'end_turn' }));
    expect(store.snapshot(SESSION).state).toMatchObject({
      state: 'idle',
      completedTurns: 0,
      stopReason: 'end_turn',
    });
  });

  it('counts a turn that ends while it was waiting on the user', () => {
    const store = new ConversationStore();
    store.applyBatch([
      state('running'),
      state('requires_action'),
      state('idle', { stopReason: 'cancelled' }),
    ]);
    expect(store.snapshot(SESSION).state).toMatchObject({ completedTurns: 1, stopReason: 'cancelled' });
  });

  it('does not count an idle without a stop reason, and clears the previous one', () => {
    const store = new ConversationStore();
    store.applyBatch([
      state('running'),
      state('idle', { stopReason: 'end_turn' }),
      state('running'),
      state('idle'),
    ]);
    expect(store.snapshot(SESSION).state).toMatchObject({ completedTurns: 1, stopReason: null, usage: null });
  });

  it('keeps the last stop reason visible while the next turn runs', () => {
    const store = new ConversationStore();
    store.applyBatch([state('running'), state('idle', { stopReason: 'max_tokens' }), state('running')]);
    expect(store.snapshot(SESSION).state).toMatchObject({ state: 'running', stopReason: 'max_tokens' });
  });

  it('reports a killed agent as disconnected while keeping the last work state', () => {
    const store = new ConversationStore();
    store.apply(state('running'));
    store.setConnection(SESSION, 'disconnected');
    expect(store.snapshot(SESSION).state).toMatchObject({ state: 'running', connection: 'disconnected' });
    store.setConnection(SESSION, 'connected');
    expect(store.snapshot(SESSION).state.connection).toBe('connected');
  });

  it('tracks extension states as non-idle', () => {
    const store = new ConversationStore();
    store.applyBatch([state('_compacting'), state('idle', { stopReason: '_custom' })]);
    expect(store.snapshot(SESSION).state).toMatchObject({ completedTurns: 1, stopReason: '_custom' });
  });

  it('merges tool_call_update fields per toolCallId in first-seen order', () => {
    const store = new ConversationStore();
    store.applyBatch([
      note({ sessionUpdate: 'tool_call_update', toolCallId: 't1', title: 'Read', status: 'pending' }),
      note({ sessionUpdate: 'tool_call_update', toolCallId: 't2', title: 'Write' }),
      note({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }),
    ]);
    const { toolCalls } = store.snapshot(SESSION);
    expect(toolCalls.map((t) => t.toolCallId)).toEqual(['t1', 't2']);
    expect(toolCalls[0]?.fields).toMatchObject({ title: 'Read', status: 'completed' });
  });

  it('keeps the latest plan per planId and the latest usage_update', () => {
    const store = new ConversationStore();
    store.applyBatch([
      note({ sessionUpdate: 'plan_update', planId: 'p', entries: [1] }),
      note({ sessionUpdate: 'plan_update', entries: ['anon'] }),
      note({ sessionUpdate: 'plan_update', planId: 'p', entries: [2] }),
      note({ sessionUpdate: 'usage_update', used: 1, size: 10 }),
      note({ sessionUpdate: 'usage_update', used: 2, size: 10 }),
    ]);
    const snapshot = store.snapshot(SESSION);
    expect(snapshot.plans.map((p) => [p.planId, p.update.entries])).toEqual([
      ['p', [2]],
      ['', ['anon']],
    ]);
    expect(snapshot.contextUsage).toMatchObject({ used: 2, size: 10 });
  });

  it('shares one position counter between messages, tool calls and plans', () => {
    const store = new ConversationStore();
    store.applyBatch([
      note({ sessionUpdate: 'agent_message', messageId: 'a', content: [] }),
      note({ sessionUpdate: 'tool_call_update', toolCallId: 't' }),
      note({ sessionUpdate: 'plan_update', planId: 'p' }),
      note({ sessionUpdate: 'agent_message', messageId: 'b' }),
    ]);
    const snapshot = store.snapshot(SESSION);
    expect([
      snapshot.messages[0]?.position,
      snapshot.toolCalls[0]?.position,
      snapshot.plans[0]?.position,
    ]).toEqual([0, 1, 2]);
    expect(snapshot.messages[1]?.position).toBe(3);
  });

  it('ignores unknown, extension and malformed updates with a diagnostic instead of throwing', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ onDiagnostic: (d) => diagnostics.push(d) });
    store.applyBatch([
      note({ sessionUpdate: 'progress_update', terminalId: 'x' }),
      note({ sessionUpdate: '_vendor_ping' }),
      note({ sessionUpdate: 'agent_message_chunk', messageId: 'a' }),
      note({ sessionUpdate: 'agent_message', messageId: 7 }),
      note({ sessionUpdate: 'user_message', messageId: 'u', content: 'text' }),
      note({ sessionUpdate: 'state_update' }),
      note({ sessionUpdate: 'tool_call_update' }),
      { sessionId: SESSION } as never,
      { update: { sessionUpdate: 'agent_message', messageId: 'x' } } as never,
    ]);
    expect(diagnostics.map((d) => d.code)).toEqual([
      'unknown_update_kind',
      'extension_update',
      'malformed_update',
      'malformed_update',
      'malformed_update',
      'malformed_update',
      'malformed_update',
      'malformed_update',
      'malformed_update',
    ]);
    expect(diagnostics[0]).toMatchObject({ sessionId: SESSION, sessionUpdate: 'progress_update' });
    expect(store.snapshot(SESSION).messages).toEqual([]);
  });
});
