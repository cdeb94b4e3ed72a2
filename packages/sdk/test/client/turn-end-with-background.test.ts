// #30 item 2: a submission's turnEnd is unaffected by background updates — an idle listing
// background work still ends the turn; a later repeated idle (the list changing after the turn)
// is not a second end, and does not end a submission inserted after the turn.
import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/conversation/index.js';
import { note, SESSION, state, text, upsert, peek } from './helpers.js';

const T1 = { type: 'terminal', terminalId: 't1' };
const usage = { totalTokens: 2, inputTokens: 1, outputTokens: 1 };

/** A store where prompt `u1` was inserted and its turn started a background terminal. */
function turnWithBackground() {
  const store = new ConversationStore();
  const localId = store.addPending(SESSION, [text('/background 1')]);
  store.applyBatch([
    upsert('user_message', 'u1', [text('/background 1')]),
    state('running'),
    note({ sessionUpdate: 'terminal_update', terminalId: 't1', command: 'sleep 1' }),
    state('running', { background: [T1] }),
  ]);
  store.resolvePending(localId, 'u1');
  return { store, localId };
}

describe('turnEnd with background work', () => {
  it('ends the turn at the idle that carries a stop reason, while that idle lists background work still running', async () => {
    const { store, localId } = turnWithBackground();
    const ended = store.turnEnd(localId);
    expect(await peek(ended)).toBe('pending');
    store.apply(state('idle', { stopReason: 'end_turn', usage, background: [T1] }));
    expect(await ended).toEqual({ messageId: 'u1', stopReason: 'end_turn', usage, error: null });
    expect(store.snapshot(SESSION).background?.map((b) => b.id)).toEqual(['t1']);
  });

  it('does not count a repeated idle after the turn as a second completion', async () => {
    const { store, localId } = turnWithBackground();
    store.apply(state('idle', { stopReason: 'end_turn', usage, background: [T1] }));
    store.applyBatch([
      note({ sessionUpdate: 'terminal_output_chunk', terminalId: 't1', data: 'tick\n' }),
      note({ sessionUpdate: 'terminal_update', terminalId: 't1', exitStatus: { exitCode: 0 } }),
      state('idle', { background: [] }),
    ]);
    const { state: view } = store.snapshot(SESSION);
    expect(view).toMatchObject({ state: 'idle', stopReason: 'end_turn', usage, completedTurns: 1 });
    expect(await store.turnEnd(localId)).toMatchObject({ stopReason: 'end_turn', usage });
  });

  it('does not end a submission inserted after the turn at a repeated idle the background list sends', async () => {
    const { store } = turnWithBackground();
    store.apply(state('idle', { stopReason: 'end_turn', background: [T1] }));
    const second = store.addPending(SESSION, [text('and now?')]);
    const ended = store.turnEnd(second);
    store.apply(upsert('user_message', 'u2', [text('and now?')]));
    store.resolvePending(second, 'u2');
    // The background terminal ends while u2 waits for its turn to start.
    store.applyBatch([
      note({ sessionUpdate: 'terminal_update', terminalId: 't1', exitStatus: { exitCode: 0 } }),
      state('idle', { background: [] }),
    ]);
    expect(await peek(ended)).toBe('pending');
    expect(store.snapshot(SESSION).state.completedTurns).toBe(1);
    store.applyBatch([
      state('running', { background: [] }),
      state('idle', { stopReason: 'max_tokens', background: [] }),
    ]);
    expect(await ended).toMatchObject({ messageId: 'u2', stopReason: 'max_tokens' });
    expect(store.snapshot(SESSION).state.completedTurns).toBe(2);
  });
});
