import { describe, expect, it } from 'vitest';
import {
  type ConversationChange,
  type ConversationDiagnostic,
  ConversationStore,
} from '../../src/client/index.js';
import { chunk, note, SESSION, text } from './helpers.js';

const toolCall = (fields: Record<string, unknown>) => note({ sessionUpdate: 'tool_call_update', ...fields });
const terminal = (fields: Record<string, unknown>) => note({ sessionUpdate: 'terminal_update', ...fields });
const output = (terminalId: string, data: string) =>
  note({ sessionUpdate: 'terminal_output_chunk', terminalId, data });

describe('tool calls by the v2 upsert rules', () => {
  it('keeps omitted fields, clears null ones and replaces the rest', () => {
    const store = new ConversationStore();
    store.applyBatch([
      toolCall({
        toolCallId: 't1',
        title: 'Read',
        kind: 'read',
        status: 'pending',
        rawInput: { path: '/a' },
      }),
      toolCall({ toolCallId: 't1', status: 'in_progress', kind: null }),
    ]);
    const [call] = store.snapshot(SESSION).toolCalls;
    expect(call?.fields).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't1',
      title: 'Read',
      status: 'in_progress',
      rawInput: { path: '/a' },
    });
    expect('kind' in (call?.fields ?? {})).toBe(false);
  });

  it('appends content chunks after the content an update set, and a later content list replaces them all', () => {
    const store = new ConversationStore();
    const block = (t: string) => ({ type: 'content', content: text(t) });
    store.applyBatch([
      toolCall({ toolCallId: 't1', content: [block('a')] }),
      note({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 't1', content: block('b') }),
      note({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 't1', content: block('c') }),
    ]);
    expect(store.snapshot(SESSION).toolCalls[0]?.fields.content).toEqual([
      block('a'),
      block('b'),
      block('c'),
    ]);
    store.apply(toolCall({ toolCallId: 't1', content: [block('z')] }));
    expect(store.snapshot(SESSION).toolCalls[0]?.fields.content).toEqual([block('z')]);
    store.apply(toolCall({ toolCallId: 't1', content: null }));
    expect(store.snapshot(SESSION).toolCalls[0]?.fields.content).toBeUndefined();
  });

  it('creates a tool call from a content chunk that names an unknown ID', () => {
    const store = new ConversationStore();
    store.apply(
      note({
        sessionUpdate: 'tool_call_content_chunk',
        toolCallId: 't9',
        content: { type: 'terminal', terminalId: 'x' },
      }),
    );
    expect(store.snapshot(SESSION).toolCalls).toEqual([
      {
        toolCallId: 't9',
        fields: { toolCallId: 't9', content: [{ type: 'terminal', terminalId: 'x' }] },
        position: 0,
      },
    ]);
  });

  it('keeps fields and values it does not know', () => {
    const store = new ConversationStore();
    store.apply(toolCall({ toolCallId: 't1', status: 'paused_by_policy', futureField: { a: 1 } }));
    expect(store.snapshot(SESSION).toolCalls[0]?.fields).toMatchObject({
      status: 'paused_by_policy',
      futureField: { a: 1 },
    });
  });

  it('merges _meta by key and stores a __proto__ field as data', () => {
    const store = new ConversationStore();
    store.applyBatch([
      toolCall({ toolCallId: 't1', _meta: { a: 1, b: 2 } }),
      toolCall({ toolCallId: 't1', _meta: { b: null, c: 3 } }),
      note({
        sessionUpdate: 'tool_call_update',
        toolCallId: 't1',
        ...JSON.parse('{"__proto__": {"polluted": true}}'),
      }),
    ]);
    const fields = store.snapshot(SESSION).toolCalls[0]?.fields ?? {};
    expect(fields._meta).toEqual({ a: 1, c: 3 });
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('display terminals', () => {
  it('appends output chunks to the output an update reported whole', () => {
    const store = new ConversationStore();
    store.applyBatch([
      terminal({ terminalId: 'term1', command: 'npm test', cwd: '/repo', output: { data: '> test\n' } }),
      output('term1', 'ok 1\n'),
      output('term1', 'ok 2\n'),
    ]);
    expect(store.snapshot(SESSION).terminals).toEqual([
      {
        terminalId: 'term1',
        fields: { command: 'npm test', cwd: '/repo' },
        output: '> test\nok 1\nok 2\n',
        position: 0,
      },
    ]);
  });

  it('replaces the output with a whole one, clears it with null and keeps it when omitted', () => {
    const store = new ConversationStore();
    store.applyBatch([output('term1', 'a'), output('term1', 'b')]);
    store.apply(terminal({ terminalId: 'term1', exitStatus: { exitCode: 0 } }));
    expect(store.snapshot(SESSION).terminals[0]).toMatchObject({
      output: 'ab',
      fields: { exitStatus: { exitCode: 0 } },
    });
    store.apply(terminal({ terminalId: 'term1', output: { data: 'whole' }, exitStatus: null }));
    expect(store.snapshot(SESSION).terminals[0]).toMatchObject({ output: 'whole', fields: {} });
    store.apply(terminal({ terminalId: 'term1', output: null }));
    expect(store.snapshot(SESSION).terminals[0]?.output).toBeNull();
    store.apply(output('term1', 'again'));
    expect(store.snapshot(SESSION).terminals[0]?.output).toBe('again');
  });

  it('tells listeners which terminals changed and shares every untouched part of the snapshot', () => {
    const store = new ConversationStore();
    store.applyBatch([
      chunk('agent_message', 'a1', text('hi')),
      toolCall({ toolCallId: 't1' }),
      output('term1', 'x'),
    ]);
    const before = store.snapshot(SESSION);
    const seen: (readonly ConversationChange[])[] = [];
    store.subscribe((changes) => seen.push(changes));
    store.apply(output('term1', 'y'));
    const after = store.snapshot(SESSION);
    expect(seen).toEqual([
      [expect.objectContaining({ terminalIds: ['term1'], messageKeys: [], toolCallIds: [] })],
    ]);
    expect(after.messages).toBe(before.messages);
    expect(after.toolCalls).toBe(before.toolCalls);
    expect(after.terminals).not.toBe(before.terminals);
    expect(before.terminals[0]?.output).toBe('x');
  });
});

describe('session-scoped updates', () => {
  it('keeps the latest plan per plan.planId', () => {
    const store = new ConversationStore();
    const plan = (planId: string, entries: unknown[]) =>
      note({ sessionUpdate: 'plan_update', plan: { type: 'items', planId, entries } });
    const entry = (content: string) => ({ content, priority: 'high', status: 'pending' });
    store.applyBatch([plan('p1', [entry('a')]), plan('p2', [entry('x')]), plan('p1', [entry('b')])]);
    expect(store.snapshot(SESSION).plans.map((p) => [p.planId, p.update.plan])).toEqual([
      ['p1', { type: 'items', planId: 'p1', entries: [entry('b')] }],
      ['p2', { type: 'items', planId: 'p2', entries: [entry('x')] }],
    ]);
  });

  it('replaces config options and available commands whole, from updates and from responses', () => {
    const store = new ConversationStore();
    const mode = (currentValue: string) => ({
      type: 'select',
      configId: 'mode',
      name: 'Mode',
      currentValue,
      options: [
        { value: 'ask', name: 'Ask' },
        { value: 'code', name: 'Code' },
      ],
    });
    store.setConfigOptions(SESSION, [mode('ask')] as never);
    expect(store.snapshot(SESSION).configOptions).toEqual([mode('ask')]);
    store.apply(
      note({
        sessionUpdate: 'config_option_update',
        configOptions: [mode('code'), { type: '_slider', configId: 'x', name: 'X' }],
      }),
    );
    expect(store.snapshot(SESSION).configOptions).toEqual([
      mode('code'),
      { type: '_slider', configId: 'x', name: 'X' },
    ]);
    store.apply(
      note({
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ type: 'command', name: 'run', description: 'Run' }],
      }),
    );
    store.setAvailableCommands(SESSION, []);
    expect(store.snapshot(SESSION).availableCommands).toEqual([]);
    expect(Object.isFrozen(store.snapshot(SESSION).configOptions)).toBe(true);
  });

  it('applies session info by the upsert rules', () => {
    const store = new ConversationStore();
    store.apply(
      note({ sessionUpdate: 'session_info_update', title: 'Fix the bug', updatedAt: '2026-01-01T00:00:00Z' }),
    );
    store.apply(note({ sessionUpdate: 'session_info_update', updatedAt: null, pinned: true }));
    expect(store.snapshot(SESSION).sessionInfo).toEqual({ title: 'Fix the bug', pinned: true });
  });

  it('keeps every notice in order, the latest usage and each compaction with its summary', () => {
    const store = new ConversationStore();
    store.applyBatch([
      note({ sessionUpdate: 'notice', severity: 'warning', title: 'Rate limited' }),
      note({ sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 0.1, currency: 'USD' } }),
      note({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' }),
      note({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text('one') }),
      note({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'c1', content: text('two') }),
      note({ sessionUpdate: 'notice', severity: '_vendor', title: 'Degraded' }),
      note({ sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'completed' }),
    ]);
    const snapshot = store.snapshot(SESSION);
    expect(snapshot.notices.map((n) => [n.notice.severity, n.notice.title, n.position])).toEqual([
      ['warning', 'Rate limited', 0],
      ['_vendor', 'Degraded', 2],
    ]);
    expect(snapshot.contextUsage).toMatchObject({
      used: 10,
      size: 100,
      cost: { amount: 0.1, currency: 'USD' },
    });
    expect(snapshot.compactions).toEqual([
      {
        compactionId: 'c1',
        fields: { status: 'completed' },
        summary: [text('one'), text('two')],
        position: 1,
      },
    ]);
  });

  it('reports a malformed update of a known kind as a diagnostic and changes nothing', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ onDiagnostic: (d) => diagnostics.push(d) });
    store.applyBatch([
      note({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: 5 }),
      note({ sessionUpdate: 'tool_call_update', toolCallId: 't', content: 'not a list' }),
      note({ sessionUpdate: 'config_option_update' }),
    ]);
    const snapshot = store.snapshot(SESSION);
    expect([snapshot.terminals, snapshot.toolCalls, snapshot.configOptions]).toEqual([[], [], null]);
    expect(diagnostics.map((d) => [d.code, d.sessionUpdate])).toEqual([
      ['malformed_update', 'terminal_output_chunk'],
      ['malformed_update', 'tool_call_update'],
      ['malformed_update', 'config_option_update'],
    ]);
  });
});
