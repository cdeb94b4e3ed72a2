// #30 item 2: the snapshot holds the session's background work (the last state_update's
// `background` list), resolved to the terminals and tool calls it names; bad lists are kept and
// shown as far as they can be, each break reported as an `inconsistent_background` diagnostic.
import { describe, expect, it } from 'vitest';
import {
  type ConversationChange,
  type ConversationDiagnostic,
  ConversationStore,
} from '../../src/client/conversation/index.js';
import { chunk, note, SESSION, state, text } from './helpers.js';

const terminal = (terminalId: string, extra: Record<string, unknown> = {}) =>
  note({ sessionUpdate: 'terminal_update', terminalId, command: 'sleep 1', ...extra });
const toolCall = (toolCallId: string, extra: Record<string, unknown> = {}) =>
  note({ sessionUpdate: 'tool_call_update', toolCallId, title: 'subtask', status: 'in_progress', ...extra });
const output = (terminalId: string, data: string) =>
  note({ sessionUpdate: 'terminal_output_chunk', terminalId, data });
const T = (terminalId: string) => ({ type: 'terminal', terminalId });
const C = (toolCallId: string) => ({ type: 'tool_call', toolCallId });

function storeWithDiagnostics(): { store: ConversationStore; diagnostics: ConversationDiagnostic[] } {
  const diagnostics: ConversationDiagnostic[] = [];
  return { store: new ConversationStore({ onDiagnostic: (d) => diagnostics.push(d) }), diagnostics };
}

describe('background work in the snapshot', () => {
  it('resolves each listed item to the terminal or tool call it names, and follows their later updates', () => {
    const { store, diagnostics } = storeWithDiagnostics();
    store.applyBatch([
      terminal('t1'),
      toolCall('c1'),
      state('idle', { stopReason: 'end_turn', background: [T('t1'), C('c1')] }),
      output('t1', 'tick 1\n'),
    ]);
    const snapshot = store.snapshot(SESSION);
    expect(snapshot.background).toEqual([
      {
        type: 'terminal',
        id: 't1',
        item: T('t1'),
        resolved: true,
        terminal: snapshot.terminals[0],
        toolCall: null,
        subagent: null,
      },
      {
        type: 'tool_call',
        id: 'c1',
        item: C('c1'),
        resolved: true,
        terminal: null,
        toolCall: snapshot.toolCalls[0],
        subagent: null,
      },
    ]);
    // Output that arrived after the list shows through the background view too.
    expect(snapshot.background?.[0]?.terminal?.output).toBe('tick 1\n');
    store.apply(output('t1', 'tick 2\n'));
    expect(store.snapshot(SESSION).background?.[0]?.terminal?.output).toBe('tick 1\ntick 2\n');
    expect(Object.isFrozen(store.snapshot(SESSION).background)).toBe(true);
    expect(diagnostics).toEqual([]);
  });

  it('shows null until the agent reports background work, [] once it reports none, and null again for a state update without a list', () => {
    const store = new ConversationStore();
    expect(store.snapshot(SESSION).background).toBeNull();
    store.apply(state('running'));
    expect(store.snapshot(SESSION).background).toBeNull();
    store.apply(state('idle', { stopReason: 'end_turn', background: [] }));
    expect(store.snapshot(SESSION).background).toEqual([]);
    store.apply(state('running', { background: null }));
    expect(store.snapshot(SESSION).background).toBeNull();
  });

  it('follows the latest list: an item leaves once a list no longer names it, its terminal stays in terminals', () => {
    const { store, diagnostics } = storeWithDiagnostics();
    store.applyBatch([terminal('t1'), state('idle', { stopReason: 'end_turn', background: [T('t1')] })]);
    store.applyBatch([terminal('t1', { exitStatus: { exitCode: 0 } }), state('idle', { background: [] })]);
    const snapshot = store.snapshot(SESSION);
    expect(snapshot.background).toEqual([]);
    expect(snapshot.terminals.map((t) => [t.terminalId, t.fields.exitStatus])).toEqual([
      ['t1', { exitCode: 0 }],
    ]);
    // Dropped after its exit status: nothing to report.
    expect(diagnostics).toEqual([]);
  });

  it('shares the background list across snapshots while neither the list nor what it names changed', () => {
    const store = new ConversationStore();
    store.applyBatch([terminal('t1'), state('idle', { stopReason: 'end_turn', background: [T('t1')] })]);
    const before = store.snapshot(SESSION).background;
    store.apply(chunk('agent_message', 'a1', text('unrelated')));
    store.apply(state('idle', { background: [T('t1')] }));
    expect(store.snapshot(SESSION).background).toBe(before);
    store.apply(output('t1', 'x'));
    expect(store.snapshot(SESSION).background).not.toBe(before);
  });

  it('tells listeners when the background list changed, and not for a repeated snapshot of the same list', () => {
    const store = new ConversationStore();
    const calls: ConversationChange[][] = [];
    store.subscribe((changes) => calls.push([...changes]));
    store.apply(terminal('t1'));
    store.apply(state('idle', { stopReason: 'end_turn', background: [T('t1')] }));
    store.apply(state('idle', { background: [T('t1')] }));
    store.apply(state('idle', { background: [] }));
    expect(calls.slice(1).map(([change]) => change?.backgroundChanged)).toEqual([true, undefined, true]);
  });

  it('keeps the list through a state this SDK does not know, unless that update carries one', () => {
    const store = new ConversationStore();
    store.applyBatch([terminal('t1'), state('idle', { stopReason: 'end_turn', background: [T('t1')] })]);
    store.apply(state('_paused'));
    expect(store.snapshot(SESSION).background?.map((b) => b.id)).toEqual(['t1']);
    store.apply(state('_paused', { background: [] }));
    expect(store.snapshot(SESSION).background).toEqual([]);
  });
});

describe('background lists that break the schema’s rules (kept, shown as far as possible)', () => {
  it('keeps an item naming an ID the store holds nothing for as an unresolved reference, and resolves it once announced', () => {
    const { store, diagnostics } = storeWithDiagnostics();
    store.apply(state('idle', { stopReason: 'end_turn', background: [T('t9'), C('c9')] }));
    const snapshot = store.snapshot(SESSION);
    // The message is kept: the state applies as any other.
    expect(snapshot.state).toMatchObject({ state: 'idle', stopReason: 'end_turn' });
    expect(snapshot.background).toEqual([
      {
        type: 'terminal',
        id: 't9',
        item: T('t9'),
        resolved: false,
        terminal: null,
        toolCall: null,
        subagent: null,
      },
      {
        type: 'tool_call',
        id: 'c9',
        item: C('c9'),
        resolved: false,
        terminal: null,
        toolCall: null,
        subagent: null,
      },
    ]);
    expect(diagnostics).toEqual([
      {
        code: 'inconsistent_background',
        sessionId: SESSION,
        sessionUpdate: 'state_update',
        message: 'background lists terminal "t9", which no terminal_update announced; kept unresolved',
      },
      {
        code: 'inconsistent_background',
        sessionId: SESSION,
        sessionUpdate: 'state_update',
        message: 'background lists tool_call "c9", which no tool_call_update announced; kept unresolved',
      },
    ]);
    store.apply(terminal('t9'));
    expect(store.snapshot(SESSION).background?.[0]).toMatchObject({
      resolved: true,
      terminal: { terminalId: 't9' },
    });
  });

  it('shows an item listed twice once, and reports it', () => {
    const { store, diagnostics } = storeWithDiagnostics();
    store.applyBatch([
      terminal('t1'),
      toolCall('c1'),
      state('idle', {
        stopReason: 'end_turn',
        background: [T('t1'), C('c1'), { ...T('t1'), _meta: { again: true } }],
      }),
    ]);
    expect(store.snapshot(SESSION).background?.map((b) => `${b.type}:${b.id}`)).toEqual([
      'terminal:t1',
      'tool_call:c1',
    ]);
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['inconsistent_background', 'background lists terminal "t1" twice; shown once'],
    ]);
  });

  it('drops an item the list drops before its final status, keeps what was reported of it, and reports it', () => {
    const { store, diagnostics } = storeWithDiagnostics();
    store.applyBatch([
      terminal('t1'),
      toolCall('c1'),
      toolCall('c2'),
      state('idle', { stopReason: 'end_turn', background: [T('t1'), C('c1'), C('c2')] }),
      output('t1', 'half way\n'),
      toolCall('c2', { status: 'completed' }),
    ]);
    // t1 has no exitStatus and c1 is still in_progress; c2 completed before it was dropped.
    store.apply(state('idle', { background: [] }));
    const snapshot = store.snapshot(SESSION);
    expect(snapshot.background).toEqual([]);
    expect(snapshot.terminals[0]).toMatchObject({ terminalId: 't1', output: 'half way\n' });
    expect(snapshot.terminals[0]?.fields.exitStatus).toBeUndefined();
    expect(snapshot.toolCalls.map((c) => [c.toolCallId, c.fields.status])).toEqual([
      ['c1', 'in_progress'],
      ['c2', 'completed'],
    ]);
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['inconsistent_background', 'background dropped terminal "t1" before its final status was reported'],
      ['inconsistent_background', 'background dropped tool_call "c1" before its final status was reported'],
    ]);
  });

  it('keeps items of a type it does not know (unresolved) and leaves out items it cannot read, reporting them', () => {
    const { store, diagnostics } = storeWithDiagnostics();
    const watcher = { type: 'watcher', watchId: 'w1' };
    const extension = { type: '_vendor_job', job: 7 };
    store.applyBatch([
      terminal('t1'),
      state('running', { background: [watcher, 5, { type: 'terminal' }, T('t1'), extension] }),
    ]);
    expect(store.snapshot(SESSION).background).toEqual([
      {
        type: 'watcher',
        id: null,
        item: watcher,
        resolved: false,
        terminal: null,
        toolCall: null,
        subagent: null,
      },
      expect.objectContaining({ type: 'terminal', id: 't1', resolved: true }),
      {
        type: '_vendor_job',
        id: null,
        item: extension,
        resolved: false,
        terminal: null,
        toolCall: null,
        subagent: null,
      },
    ]);
    expect(store.snapshot(SESSION).state.state).toBe('running');
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['malformed_update', 'state_update background/1 is not an object with a string type; left out'],
      ['malformed_update', 'state_update background/2 (terminal) has no string terminalId; left out'],
    ]);
  });

  it('applies the state of an update whose background is not a list, and shows no background work', () => {
    const { store, diagnostics } = storeWithDiagnostics();
    store.apply(
      state('idle', { stopReason: 'end_turn', background: { type: 'terminal', terminalId: 't1' } }),
    );
    expect(store.snapshot(SESSION).state).toMatchObject({ state: 'idle', stopReason: 'end_turn' });
    expect(store.snapshot(SESSION).background).toBeNull();
    expect(diagnostics.map((d) => d.code)).toEqual(['malformed_update']);
  });
});
