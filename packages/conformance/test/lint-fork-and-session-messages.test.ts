import { describe, expect, it } from 'vitest';
import { lintTranscript } from '../src/index.js';
import { TranscriptBuilder } from './helpers/transcript.js';

type Result = ReturnType<typeof lintTranscript>;
const FORK_RULES = ['fork.replay.retained', 'fork.replay.no-duplicate'];
const about = (result: Result, ids: readonly string[]) =>
  result.findings.filter((f) => ids.includes(f.ruleId)).map((f) => [f.ruleId, f.line]);
const statusOf = (result: Result, id: string) => result.results.find((r) => r.id === id)?.status;

const text = (value: string) => ({ type: 'text', text: value });

/**
 * A session with one turn, replayed, then forked into sess_fork and the fork replayed. `forkReplay`
 * writes the fork's replay (between the resume request and its answer).
 */
function forked(forkReplay: (t: TranscriptBuilder) => number | undefined): {
  t: TranscriptBuilder;
  line?: number;
} {
  const t = new TranscriptBuilder().open();
  t.prompt(2, 'Hello');
  t.result(2, { messageId: 'm1' });
  t.turn('m1', 'Hello', 'r1');
  t.client({
    jsonrpc: '2.0',
    id: 3,
    method: 'session/resume',
    params: { sessionId: 'sess_1', cwd: '/tmp', replayFrom: { type: 'start' } },
  });
  t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [text('Hello')] });
  t.update({ sessionUpdate: 'agent_message', messageId: 'r1', content: [text('Hi there.')] });
  t.result(3, {});
  t.client({ jsonrpc: '2.0', id: 4, method: 'session/fork', params: { sessionId: 'sess_1', cwd: '/tmp' } });
  t.result(4, { sessionId: 'sess_fork' });
  t.client({
    jsonrpc: '2.0',
    id: 5,
    method: 'session/resume',
    params: { sessionId: 'sess_fork', cwd: '/tmp', replayFrom: { type: 'start' } },
  });
  const line = forkReplay(t);
  t.result(5, {});
  return { t, ...(line === undefined ? {} : { line }) };
}

const faithful = (t: TranscriptBuilder): undefined => {
  t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [text('Hello')] }, 'sess_fork');
  t.update({ sessionUpdate: 'agent_message', messageId: 'r1', content: [] }, 'sess_fork');
  t.update(
    { sessionUpdate: 'agent_message_chunk', messageId: 'r1', content: text('Hi there.') },
    'sess_fork',
  );
  return undefined;
};

describe('lintTranscript on forks (unstable surface)', () => {
  it('passes a fork replayed with the source’s messages once, under the same IDs', () => {
    const result = lintTranscript(forked(faithful).t.text());
    expect(about(result, FORK_RULES)).toEqual([]);
    for (const id of FORK_RULES) expect(statusOf(result, id), id).toBe('pass');
  });

  it('passes a fork that gives the copied messages new IDs (the RFD leaves the IDs to the agent)', () => {
    const { t } = forked((b) => {
      b.update({ sessionUpdate: 'user_message', messageId: 'f1', content: [text('Hello')] }, 'sess_fork');
      b.update(
        { sessionUpdate: 'agent_message', messageId: 'f2', content: [text('Hi there.')] },
        'sess_fork',
      );
      return undefined;
    });
    expect(about(lintTranscript(t.text()), FORK_RULES)).toEqual([]);
  });

  it('fails a fork whose replay lacks a message of the source, at the replay’s answer', () => {
    const { t } = forked((b) => {
      b.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [text('Hello')] }, 'sess_fork');
      return undefined;
    });
    const answer = t.nextLine - 1;
    expect(about(lintTranscript(t.text()), FORK_RULES)).toEqual([['fork.replay.retained', answer]]);
  });

  it('fails a fork that keeps a source ID for other content', () => {
    const { t, line } = forked((b) => {
      b.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [text('Hello')] }, 'sess_fork');
      return b.update(
        { sessionUpdate: 'agent_message', messageId: 'r1', content: [text('Other.')] },
        'sess_fork',
      );
    });
    const result = lintTranscript(t.text());
    expect(about(result, ['fork.replay.retained'])).toEqual([['fork.replay.retained', line]]);
  });

  it('fails a fork that replays the source’s content twice: under its ID and a new one', () => {
    const { t, line } = forked((b) => {
      faithful(b);
      return b.update(
        { sessionUpdate: 'user_message', messageId: 'f1', content: [text('Hello')] },
        'sess_fork',
      );
    });
    expect(about(lintTranscript(t.text()), FORK_RULES)).toEqual([['fork.replay.no-duplicate', line]]);
  });

  it('fails a fork whose replay appends a copied message’s chunks again, with no reset between', () => {
    const { t, line } = forked((b) => {
      faithful(b);
      return b.update(
        { sessionUpdate: 'agent_message_chunk', messageId: 'r1', content: text('Hi there.') },
        'sess_fork',
      );
    });
    expect(about(lintTranscript(t.text()), FORK_RULES)).toEqual([['fork.replay.no-duplicate', line]]);
  });

  it('skips both rules without a fork, so a stable-only agent is not failed by them', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'hi');
    t.result(2, { messageId: 'm1' });
    t.turn('m1', 'hi', 'r1');
    const result = lintTranscript(t.text());
    for (const id of FORK_RULES) {
      expect(statusOf(result, id), id).toBe('skip');
      expect(result.results.find((r) => r.id === id)?.reason).toMatch(/unstable surface/);
    }
  });
});

/** A parent that sent sess_child a session message live, then a replay of the parent. */
function sessionMessage(replay: (t: TranscriptBuilder) => number): { t: TranscriptBuilder; line: number } {
  const t = new TranscriptBuilder().open();
  t.update({ sessionUpdate: 'subagent_update', sessionId: 'sess_child' });
  t.update({
    sessionUpdate: 'session_message',
    messageId: 'sm1',
    recipientSessionId: 'sess_child',
    content: [],
  });
  t.update({ sessionUpdate: 'session_message_chunk', messageId: 'sm1', content: text('Count ') });
  t.update({ sessionUpdate: 'session_message_chunk', messageId: 'sm1', content: text('the files.') });
  t.client({
    jsonrpc: '2.0',
    id: 3,
    method: 'session/resume',
    params: { sessionId: 'sess_1', cwd: '/tmp', replayFrom: { type: 'start' } },
  });
  const line = replay(t);
  t.result(3, {});
  return { t, line };
}

describe('lintTranscript on session messages (unstable surface)', () => {
  it('passes a session message replayed whole under its ID', () => {
    const { t } = sessionMessage((b) =>
      b.update({
        sessionUpdate: 'session_message',
        messageId: 'sm1',
        recipientSessionId: 'sess_child',
        content: [text('Count the files.')],
      }),
    );
    const result = lintTranscript(t.text());
    expect(about(result, ['session-message.replay'])).toEqual([]);
    expect(statusOf(result, 'session-message.replay')).toBe('pass');
  });

  it('fails a replay that appends the chunks again without a reset', () => {
    const { t, line } = sessionMessage((b) =>
      b.update({
        sessionUpdate: 'session_message_chunk',
        messageId: 'sm1',
        content: text('Count the files.'),
      }),
    );
    expect(about(lintTranscript(t.text()), ['session-message.replay'])).toEqual([
      ['session-message.replay', line],
    ]);
  });

  it('fails a replay that ends with other content, or moves the message to another recipient', () => {
    const { t, line } = sessionMessage((b) =>
      b.update({
        sessionUpdate: 'session_message',
        messageId: 'sm1',
        recipientSessionId: 'sess_other',
        content: [text('Count the files. Count the files.')],
      }),
    );
    const result = lintTranscript(t.text());
    expect(about(result, ['session-message.replay'])).toEqual([
      ['session-message.replay', line],
      ['session-message.replay', line],
    ]);
    expect(result.findings.map((f) => f.pointer)).toContain('/params/update/recipientSessionId');
  });

  it('holds a session message to the replay rules of every message kind (reset before chunks)', () => {
    const { t, line } = sessionMessage((b) =>
      b.update({
        sessionUpdate: 'session_message_chunk',
        messageId: 'sm1',
        content: text('Count the files.'),
      }),
    );
    expect(about(lintTranscript(t.text()), ['resume.replay.reset-before-chunks'])).toEqual([
      ['resume.replay.reset-before-chunks', line],
    ]);
  });

  it('skips the rule without session messages', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'hi');
    t.result(2, { messageId: 'm1' });
    t.turn('m1', 'hi', 'r1');
    expect(statusOf(lintTranscript(t.text()), 'session-message.replay')).toBe('skip');
  });
});
