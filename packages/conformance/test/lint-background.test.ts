import { describe, expect, it } from 'vitest';
import { lintTranscript } from '../src/index.js';
import { TranscriptBuilder } from './helpers/transcript.js';

type Finding = ReturnType<typeof lintTranscript>['findings'][number];

const background = (findings: readonly Finding[]) =>
  findings
    .filter((finding) => finding.ruleId.startsWith('background.'))
    .map((finding) => [finding.ruleId, finding.line, finding.pointer]);

/** A turn that leaves a terminal running in the background, announced inside the turn. */
function turnWithTerminal(): TranscriptBuilder {
  const t = new TranscriptBuilder().open();
  t.prompt(2, 'Build it in the background');
  t.result(2, { messageId: 'm1' });
  t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [{ type: 'text', text: 'Build' }] });
  t.update({ sessionUpdate: 'state_update', state: 'running', background: [] });
  t.update({ sessionUpdate: 'terminal_update', terminalId: 't1', command: 'make' });
  t.update({
    sessionUpdate: 'state_update',
    state: 'idle',
    stopReason: 'end_turn',
    background: [{ type: 'terminal', terminalId: 't1' }],
  });
  return t;
}

describe('lintTranscript on background work', () => {
  it('finds nothing when work is announced, ends before it leaves the list, and every state lists it', () => {
    const t = turnWithTerminal();
    t.update({ sessionUpdate: 'terminal_output_chunk', terminalId: 't1', data: 'ok\n' });
    t.update({ sessionUpdate: 'terminal_update', terminalId: 't1', exitStatus: { exitCode: 0 } });
    t.update({ sessionUpdate: 'state_update', state: 'idle', background: [] });
    const result = lintTranscript(t.text());
    expect(result.findings.filter((finding) => finding.ruleId !== 'client-message.schema')).toEqual([]);
  });

  it('points at the list entry of an item never announced, and at a second entry for one item', () => {
    const t = turnWithTerminal();
    const line = t.update({
      sessionUpdate: 'state_update',
      state: 'idle',
      background: [
        { type: 'terminal', terminalId: 't1' },
        { type: 'tool_call', toolCallId: 'ghost' },
        { type: 'terminal', terminalId: 't1' },
      ],
    });
    expect(background(lintTranscript(t.text()).findings)).toEqual([
      ['background.announced-first', line, '/params/update/background/1'],
      ['background.listed-once', line, '/params/update/background/2'],
    ]);
  });

  it('flags an item dropped before its end, and a state_update that stops listing', () => {
    const t = turnWithTerminal();
    const dropped = t.update({ sessionUpdate: 'state_update', state: 'idle', background: [] });
    const unlisted = t.update({ sessionUpdate: 'state_update', state: 'idle' });
    expect(background(lintTranscript(t.text()).findings)).toEqual([
      ['background.final-before-removal', dropped, undefined],
      ['background.every-state-update', unlisted, '/params/update/background'],
    ]);
  });

  it('flags a terminal-backed tool call listed beside its terminal', () => {
    const t = turnWithTerminal();
    t.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId: 't1' }],
    });
    const line = t.update({
      sessionUpdate: 'state_update',
      state: 'idle',
      background: [
        { type: 'terminal', terminalId: 't1' },
        { type: 'tool_call', toolCallId: 'c1' },
      ],
    });
    expect(background(lintTranscript(t.text()).findings)).toEqual([
      ['background.listed-once', line, '/params/update/background/1'],
    ]);
  });

  it('keeps items of kinds it does not know out of every rule (forward compatibility)', () => {
    const t = turnWithTerminal();
    t.update({
      sessionUpdate: 'state_update',
      state: 'idle',
      background: [
        { type: 'terminal', terminalId: 't1' },
        { type: 'subagent', agentId: 'x' },
      ],
    });
    expect(background(lintTranscript(t.text()).findings)).toEqual([]);
  });

  it('flags background work stopped by session/cancel, and usage on a repeated idle', () => {
    const t = turnWithTerminal();
    t.prompt(3, 'Now something long');
    t.result(3, { messageId: 'm2' });
    t.update({ sessionUpdate: 'user_message', messageId: 'm2', content: [{ type: 'text', text: 'Long' }] });
    t.update({
      sessionUpdate: 'state_update',
      state: 'running',
      background: [{ type: 'terminal', terminalId: 't1' }],
    });
    t.client({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess_1' } });
    const killed = t.update({
      sessionUpdate: 'terminal_update',
      terminalId: 't1',
      exitStatus: { signal: 'SIGTERM' },
    });
    t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled', background: [] });
    const repeated = t.update({
      sessionUpdate: 'state_update',
      state: 'idle',
      usage: { totalTokens: 3, inputTokens: 2, outputTokens: 1 },
      background: [],
    });
    expect(background(lintTranscript(t.text()).findings)).toEqual([
      ['background.cancel-leaves-running', killed, undefined],
      ['background.repeat-not-completion', repeated, '/params/update/usage'],
    ]);
  });
});
