// #30 item 2: agent messages that arrive outside a turn (before the first prompt, after the idle
// that ended the turn, while a background task runs) are shown in the order the agent reported
// them and attributed to no prompt: a submission is tied to its own user message by the messageId
// of its prompt response only, and its turn ends at the idle that ends its work, whatever else
// the agent says around it.
import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/conversation/index.js';
import { chunk, note, SESSION, state, text, texts, upsert, peek } from './helpers.js';

describe('agent messages outside a turn', () => {
  it('shows a greeting, a turn and a note after the turn in the order reported, interleaved with the background terminal', async () => {
    const store = new ConversationStore();
    store.apply(upsert('agent_message', 'hello', [text('Hello!')]));
    const localId = store.addPending(SESSION, [text('/background 1')]);
    store.applyBatch([upsert('user_message', 'u1', [text('/background 1')]), state('running')]);
    store.resolvePending(localId, 'u1');
    store.applyBatch([
      note({ sessionUpdate: 'terminal_update', terminalId: 't1', command: 'sleep 1' }),
      chunk('agent_message', 'reply', text('Started it in the background.')),
      state('idle', { stopReason: 'end_turn', background: [{ type: 'terminal', terminalId: 't1' }] }),
    ]);
    const ended = await store.turnEnd(localId);
    store.applyBatch([
      note({ sessionUpdate: 'terminal_output_chunk', terminalId: 't1', data: 'tick\n' }),
      note({ sessionUpdate: 'terminal_update', terminalId: 't1', exitStatus: { exitCode: 0 } }),
      state('idle', { background: [] }),
      chunk('agent_message', 'later', text('The background job finished.')),
    ]);
    const snapshot = store.snapshot(SESSION);
    expect(texts(snapshot)).toEqual([
      'agent_message:hello=Hello!',
      'user_message:u1=/background 1',
      'agent_message:reply=Started it in the background.',
      'agent_message:later=The background job finished.',
    ]);
    // One feed order for messages and the terminal: greeting, prompt, terminal, reply, note.
    const positions = snapshot.messages.map((m) => m.position);
    expect(positions).toEqual([0, 1, 3, 4]);
    expect(snapshot.terminals[0]?.position).toBe(2);
    // Only the submission's own message carries its localId.
    expect(snapshot.messages.map((m) => m.localId)).toEqual([null, localId, null, null]);
    // The turn is the one its idle ended; what came after changes neither it nor the count.
    expect(ended).toEqual({ messageId: 'u1', stopReason: 'end_turn', usage: null, error: null });
    expect(await store.turnEnd(localId)).toBe(ended);
    expect(snapshot.state).toMatchObject({ state: 'idle', stopReason: 'end_turn', completedTurns: 1 });
  });

  it('does not tie an agent message that arrives while a submission waits to that submission, nor end its turn', async () => {
    const store = new ConversationStore();
    store.apply(state('idle', { stopReason: 'end_turn', background: [] }));
    const localId = store.addPending(SESSION, [text('same words')]);
    const ended = store.turnEnd(localId);
    // Out of turn, with the very content of the pending submission: still not its message.
    store.apply(upsert('agent_message', 'note', [text('same words')]));
    expect(store.snapshot(SESSION).messages.map((m) => [m.key, m.origin, m.localId])).toEqual([
      ['agent_message:note', 'agent', null],
      [`local:${localId}`, 'local-pending', localId],
    ]);
    store.apply(upsert('user_message', 'u2', [text('same words')]));
    store.resolvePending(localId, 'u2');
    store.apply(upsert('agent_message', 'note', [text('same words, edited')]));
    expect(await peek(ended)).toBe('pending');
    expect(texts(store.snapshot(SESSION))).toEqual([
      'agent_message:note=same words, edited',
      'user_message:u2=same words',
    ]);
    store.applyBatch([state('running'), state('idle', { stopReason: 'end_turn' })]);
    expect(await ended).toMatchObject({ messageId: 'u2', stopReason: 'end_turn' });
  });
});
