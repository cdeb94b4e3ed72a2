import { describe, expect, it } from 'vitest';
import { type ConversationDiagnostic, ConversationStore } from '../../src/client/index.js';
import { SESSION, state } from './helpers.js';

describe('the unknown state (unstable)', () => {
  it('stops presenting the previous state, keeps the background rules, and lets a later idle end the work', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ onDiagnostic: (d) => diagnostics.push(d) });
    store.apply(state('running', { background: [] }));
    store.apply(state('unknown', { background: [] }));
    expect(store.snapshot(SESSION).state.state).toBe('unknown');
    expect(store.snapshot(SESSION).background).toEqual([]);
    // Omitted background: not reported (as on every known state), not "kept from before".
    store.apply(state('unknown'));
    expect(store.snapshot(SESSION).background).toBeNull();
    store.apply(state('idle', { stopReason: 'end_turn' }));
    expect(store.snapshot(SESSION).state).toMatchObject({
      state: 'idle',
      stopReason: 'end_turn',
      completedTurns: 1,
    });
    expect(diagnostics).toEqual([]);
  });

  it('counts no turn for an idle after an unknown that no work came before (as for a first idle)', () => {
    const store = new ConversationStore();
    store.apply(state('unknown'));
    store.apply(state('idle', { stopReason: 'end_turn' }));
    expect(store.snapshot(SESSION).state.completedTurns).toBe(0);
    store.apply(state('running'));
    store.apply(state('idle', { stopReason: 'end_turn' }));
    expect(store.snapshot(SESSION).state.completedTurns).toBe(1);
  });
});
