import { describe, expect, it } from 'vitest';
import { lintTranscript } from '../src/index.js';
import { TranscriptBuilder } from './helpers/transcript.js';

type Result = ReturnType<typeof lintTranscript>;
const about = (result: Result, ids: readonly string[]) =>
  result.findings.filter((f) => ids.includes(f.ruleId)).map((f) => [f.ruleId, f.line, f.pointer]);
const statusOf = (result: Result, id: string) => result.results.find((r) => r.id === id)?.status;

/** A turn that starts a subagent sess_child, announced (or not) before the child's updates. */
function withChild(announceFirst: boolean): { t: TranscriptBuilder; childLine: number } {
  const t = new TranscriptBuilder().open();
  t.prompt(2, 'Review it');
  t.result(2, { messageId: 'm1' });
  t.update({
    sessionUpdate: 'user_message',
    messageId: 'm1',
    content: [{ type: 'text', text: 'Review it' }],
  });
  t.update({ sessionUpdate: 'state_update', state: 'running' });
  const announce = () =>
    t.update({ sessionUpdate: 'subagent_update', sessionId: 'sess_child', title: 'Reviewer' });
  if (announceFirst) announce();
  const childLine = t.update({ sessionUpdate: 'state_update', state: 'running' }, 'sess_child');
  if (!announceFirst) announce();
  t.update(
    { sessionUpdate: 'agent_message_chunk', messageId: 'c1', content: { type: 'text', text: 'fine' } },
    'sess_child',
  );
  t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }, 'sess_child');
  t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
  return { t, childLine };
}

describe('lintTranscript on subagents (unstable surface)', () => {
  it('accepts a child’s updates once its parent announced it: no unknown-session finding, the rule passes', () => {
    const result = lintTranscript(withChild(true).t.text());
    expect(about(result, ['update.session-id', 'subagent.announced-first'])).toEqual([]);
    expect(statusOf(result, 'subagent.announced-first')).toBe('pass');
  });

  it('pins a child update that comes before the announcement, under both rules', () => {
    const { t, childLine } = withChild(false);
    const result = lintTranscript(t.text());
    expect(about(result, ['update.session-id', 'subagent.announced-first'])).toEqual([
      ['update.session-id', childLine, undefined],
      ['subagent.announced-first', childLine, '/params/sessionId'],
    ]);
  });

  it('skips the rule for a transcript without subagents, so a stable-only agent is not failed by it', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'hi');
    t.result(2, { messageId: 'm1' });
    t.turn('m1', 'hi', 'r1');
    const result = lintTranscript(t.text());
    expect(statusOf(result, 'subagent.announced-first')).toBe('skip');
    expect(result.results.find((r) => r.id === 'subagent.announced-first')?.reason).toMatch(
      /unstable surface/,
    );
  });

  it('flags a session that announces itself', () => {
    const t = new TranscriptBuilder().open();
    const line = t.update({ sessionUpdate: 'subagent_update', sessionId: 'sess_1' });
    expect(about(lintTranscript(t.text()), ['subagent.announced-first'])).toEqual([
      ['subagent.announced-first', line, '/params/update/sessionId'],
    ]);
  });
});
