import { describe, expect, it } from 'vitest';
import {
  type ConversationChange,
  type ConversationDiagnostic,
  ConversationStore,
} from '../../src/client/index.js';
import { note, SESSION, state, text, texts } from './helpers.js';

const CHILD = 'sess_child';
const sub = (fields: Record<string, unknown>) =>
  note({ sessionUpdate: 'subagent_update', sessionId: CHILD, ...fields });

describe('subagent_update (unstable)', () => {
  it('announces a child under the parent and patches it: omitted keeps, null clears, _meta by key', () => {
    const changes: ConversationChange[] = [];
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.subscribe((batch) => changes.push(...batch));
    store.apply(
      sub({
        title: 'Reviewer',
        description: 'reviews the diff',
        capabilities: { cancel: {} },
        cwd: '/repo/pkg',
        _meta: { 'x.com/a': 1, 'x.com/b': 2 },
      }),
    );
    store.apply(sub({ title: null, state: { state: 'running' }, _meta: { 'x.com/a': null } }));
    const [child] = store.snapshot(SESSION).subagents;
    expect(child!.sessionId).toBe(CHILD);
    expect(child!.fields).toEqual({
      description: 'reviews the diff',
      capabilities: { cancel: {} },
      cwd: '/repo/pkg',
      state: { state: 'running' },
      _meta: { 'x.com/b': 2 },
    });
    expect(changes.map((c) => c.subagentIds)).toEqual([[CHILD], [CHILD]]);
    expect(diagnostics).toEqual([]);
  });

  it('replaces the mirrored state whole and removes it on null, without touching the parent’s own state', () => {
    const store = new ConversationStore({ unstable: true });
    store.apply(state('running'));
    store.apply(sub({ state: { state: 'idle', stopReason: 'end_turn', background: [] } }));
    store.apply(sub({ state: { state: 'running' } }));
    expect(store.snapshot(SESSION).subagents[0]!.fields.state).toEqual({ state: 'running' });
    store.apply(sub({ state: null }));
    expect(store.snapshot(SESSION).subagents[0]!.fields).toEqual({});
    expect(store.snapshot(SESSION).state.state).toBe('running');
  });

  it('keeps the child’s own updates in the child’s conversation, reached with no load', () => {
    const store = new ConversationStore({ unstable: true });
    store.apply(sub({ title: 'Reviewer' }));
    store.apply(
      note({ sessionUpdate: 'agent_message', messageId: 'm1', content: [text('looks fine')] }, CHILD),
    );
    expect(texts(store.snapshot(CHILD))).toEqual(['agent_message:m1=looks fine']);
    expect(texts(store.snapshot(SESSION))).toEqual([]);
    expect(store.snapshot(SESSION).subagents.map((s) => s.sessionId)).toEqual([CHILD]);
  });

  it('resolves a background subagent item to the announced child, and flags one dropped while still running', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.apply(sub({ title: 'Reviewer', state: { state: 'running' } }));
    store.apply(state('idle', { background: [{ type: 'subagent', sessionId: CHILD }] }));
    const [item] = store.snapshot(SESSION).background!;
    expect(item!.resolved).toBe(true);
    expect(item!.subagent?.fields.title).toBe('Reviewer');
    expect(item!.terminal).toBeNull();
    store.apply(state('idle', { background: [] }));
    expect(diagnostics.map((d) => d.code)).toEqual(['inconsistent_background']);
    expect(diagnostics[0]!.message).toMatch(/dropped subagent "sess_child" before its final status/);
  });

  it('lets a subagent leave the background list once its mirrored state is idle', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.apply(sub({ state: { state: 'running' } }));
    store.apply(state('idle', { background: [{ type: 'subagent', sessionId: CHILD }] }));
    store.apply(sub({ state: { state: 'idle', stopReason: 'end_turn' } }));
    store.apply(state('idle', { background: [] }));
    expect(store.snapshot(SESSION).background).toEqual([]);
    expect(diagnostics).toEqual([]);
  });

  it('replays to the same view: a repeated announcement changes nothing, an unknown field is kept', () => {
    const store = new ConversationStore({ unstable: true });
    const updates = [sub({ title: 'Reviewer', 'x.future': { a: 1 } }), sub({ state: { state: 'idle' } })];
    store.applyBatch(updates);
    const first = store.snapshot(SESSION).subagents;
    store.applyBatch(updates);
    expect(store.snapshot(SESSION).subagents).toEqual(first);
    expect(first[0]!.fields['x.future']).toEqual({ a: 1 });
  });

  it('refuses an update without a string sessionId or with a state that is not a snapshot', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.apply(note({ sessionUpdate: 'subagent_update', title: 'x' }));
    store.apply(sub({ state: 'idle' }));
    expect(store.snapshot(SESSION).subagents).toEqual([]);
    expect(diagnostics.map((d) => [d.code, d.sessionUpdate])).toEqual([
      ['malformed_update', 'subagent_update'],
      ['malformed_update', 'subagent_update'],
    ]);
  });
});
