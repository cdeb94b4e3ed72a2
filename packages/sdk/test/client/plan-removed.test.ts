import { describe, expect, it } from 'vitest';
import {
  type ConversationChange,
  type ConversationDiagnostic,
  ConversationStore,
} from '../../src/client/index.js';
import { note, SESSION } from './helpers.js';

const entry = (content: string) => ({ content, priority: 'high', status: 'pending' });
const plan = (planId: string, content: string) =>
  note({ sessionUpdate: 'plan_update', plan: { type: 'items', planId, entries: [entry(content)] } });
const removed = (planId: string) => note({ sessionUpdate: 'plan_removed', planId });

describe('plan_removed (unstable)', () => {
  it('drops the plan named by planId and reports it changed; the other plans stay', () => {
    const changes: ConversationChange[] = [];
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.applyBatch([plan('p1', 'a'), plan('p2', 'x')]);
    store.subscribe((batch) => changes.push(...batch));
    store.apply(removed('p1'));
    expect(store.snapshot(SESSION).plans.map((p) => p.planId)).toEqual(['p2']);
    expect(changes.map((c) => c.planIds)).toEqual([['p1']]);
    expect(store.snapshot(SESSION).otherUpdates).toEqual([]);
    expect(diagnostics).toEqual([]);
  });

  it('lets a later plan_update under the same planId report a new plan, after the others', () => {
    const store = new ConversationStore({ unstable: true });
    store.applyBatch([plan('p1', 'a'), plan('p2', 'x'), removed('p1'), plan('p1', 'b')]);
    expect(store.snapshot(SESSION).plans.map((p) => [p.planId, p.update.plan])).toEqual([
      ['p2', { type: 'items', planId: 'p2', entries: [entry('x')] }],
      ['p1', { type: 'items', planId: 'p1', entries: [entry('b')] }],
    ]);
  });

  it('changes nothing for a plan the store does not hold, and refuses one without a planId', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.apply(plan('p1', 'a'));
    const before = store.snapshot(SESSION);
    store.apply(removed('p9'));
    store.apply(note({ sessionUpdate: 'plan_removed' }));
    expect(store.snapshot(SESSION).plans).toBe(before.plans);
    expect(diagnostics.map((d) => [d.code, d.sessionUpdate])).toEqual([['malformed_update', 'plan_removed']]);
  });
});
