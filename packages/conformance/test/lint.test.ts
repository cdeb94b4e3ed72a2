import { describe, expect, it } from 'vitest';
import { lintTranscript, parseTranscript, runConformance } from '../src/index.js';
import { fixtureArgs } from './helpers/agents.js';
import { TranscriptBuilder } from './helpers/transcript.js';

const failing = (text: string) =>
  lintTranscript(text)
    .findings.filter((finding) => finding.ruleId !== 'client-message.schema')
    .map((finding) => [finding.ruleId, finding.line]);

function goodSession(): TranscriptBuilder {
  const t = new TranscriptBuilder().open();
  t.prompt(2, 'Hello');
  t.result(2, { messageId: 'm1' });
  t.turn('m1', 'Hello', 'a1');
  return t;
}

describe('lintTranscript', () => {
  it('reports a rule broken by every one of 200 000 updates without overflowing the call stack', () => {
    const update = (i: number): string =>
      JSON.stringify({
        dir: 'agent->client',
        t: i,
        msg: {
          jsonrpc: '2.0',
          method: 'session/update',
          params: {
            sessionId: 'sess_never_created',
            update: {
              sessionUpdate: 'agent_message_chunk',
              messageId: 'm',
              content: { type: 'text', text: 'x' },
            },
          },
        },
      });
    const lines = Array.from({ length: 200_000 }, (_, i) => update(i));
    const result = lintTranscript(`${lines.join('\n')}\n`);
    expect(result.messages).toBe(200_000);
    expect(result.findings.filter((finding) => finding.ruleId === 'update.session-id')).toHaveLength(200_000);
  });

  it('finds nothing in a well-behaved transcript', () => {
    const result = lintTranscript(goodSession().text());
    expect(result.findings).toEqual([]);
    expect(result.failed).toBe(false);
    expect(result.messages).toBe(11);
  });

  it('points at the response line of a prompt response without messageId, and reports it once', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    const line = t.result(2, {});
    t.turn('m1', 'Hello', 'a1');
    expect(failing(t.text())).toEqual([['prompt.response.message-id', line]]);
    expect(lintTranscript(t.text()).failed).toBe(true);
  });

  it('rejects a prompt response whose messageId is null or empty', () => {
    for (const messageId of [null, '']) {
      const t = new TranscriptBuilder().open();
      t.prompt(2, 'Hello');
      const line = t.result(2, { messageId });
      t.turn('m1', 'Hello', 'a1');
      expect(failing(t.text())).toEqual([['prompt.response.message-id', line]]);
    }
  });

  it('flags a response held until after the idle that ends its work', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    t.turn('m1', 'Hello', 'a1');
    const line = t.result(2, { messageId: 'm1' });
    expect(failing(t.text())).toEqual([['prompt.response.before-idle', line]]);
  });

  it('accepts a response that arrives after the user message but before the idle', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [{ type: 'text', text: 'Hello' }] });
    t.update({ sessionUpdate: 'state_update', state: 'running' });
    t.result(2, { messageId: 'm1' });
    t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    expect(failing(t.text())).toEqual([]);
  });

  it('flags the second of two identical prompts answered with the same messageId', () => {
    const t = goodSession();
    t.prompt(3, 'Hello');
    const line = t.result(3, { messageId: 'm1' });
    t.turn('m1', 'Hello', 'a2');
    expect(failing(t.text())).toEqual([['prompt.message-id.distinct', line]]);
  });

  it('flags a user message reported under another ID than the returned one, at the message', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    t.result(2, { messageId: 'm1' });
    const line = t.nextLine;
    t.turn('other', 'Hello', 'a1');
    expect(failing(t.text())).toEqual([['prompt.user-message.same-id', line]]);
  });

  it('flags an unknown stop reason once, under its own rule rather than the schema rule', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    t.result(2, { messageId: 'm1' });
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [] });
    t.update({ sessionUpdate: 'state_update', state: 'running' });
    const line = t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'done' });
    expect(failing(t.text())).toEqual([['state.stop-reason.known', line]]);
  });

  it('accepts _-prefixed stop reasons', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    t.result(2, { messageId: 'm1' });
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [] });
    t.update({ sessionUpdate: 'state_update', state: 'running' });
    t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: '_paused' });
    expect(failing(t.text())).toEqual([]);
  });

  it('flags a user message reported for a rejected prompt, and an accepted empty prompt', () => {
    const t = new TranscriptBuilder().open();
    t.client({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId: 'sess_1', prompt: [] },
    });
    const stray = t.update({ sessionUpdate: 'user_message', messageId: 'm0', content: [] });
    t.error(2, -32602);
    t.client({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/prompt',
      params: { sessionId: 'sess_1', prompt: [] },
    });
    const accepted = t.result(3, { messageId: 'm1' });
    t.turn('m1', '', 'a1');
    expect(failing(t.text())).toEqual([
      ['prompt.rejected.no-user-message', stray],
      ['prompt.rejected.error', accepted],
    ]);
  });

  it('flags an accepted prompt for a session the connection never opened', () => {
    const t = goodSession();
    t.prompt(3, 'Hello?', 'sess_nope');
    const line = t.result(3, { messageId: 'm9' });
    t.turn('m9', 'Hello?', 'a9', 'sess_nope');
    expect(failing(t.text())).toEqual([['prompt.rejected.error', line]]);
  });

  it('does not guess about unknown sessions when the transcript starts mid-connection', () => {
    const t = new TranscriptBuilder();
    t.prompt(3, 'Hello?', 'sess_7');
    t.result(3, { messageId: 'm9' });
    t.turn('m9', 'Hello?', 'a9', 'sess_7');
    expect(failing(t.text())).toEqual([]);
  });

  it('flags replayed chunks that were not reset first, at the first chunk', () => {
    const t = goodSession();
    t.client({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/resume',
      params: { sessionId: 'sess_1', cwd: '/tmp', replayFrom: { type: 'start' } },
    });
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [{ type: 'text', text: 'Hello' }] });
    const chunk = t.update({
      sessionUpdate: 'agent_message_chunk',
      messageId: 'a1',
      content: { type: 'text', text: 'Hi there.' },
    });
    t.result(3, {});
    expect(failing(t.text())).toEqual([['resume.replay.reset-before-chunks', chunk]]);
  });

  it('flags a replay that duplicates content even though it starts with a full update', () => {
    const t = goodSession();
    t.client({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/resume',
      params: { sessionId: 'sess_1', cwd: '/tmp', replayFrom: { type: 'start' } },
    });
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [{ type: 'text', text: 'Hello' }] });
    const last = t.update({
      sessionUpdate: 'user_message_chunk',
      messageId: 'm1',
      content: { type: 'text', text: 'Hello' },
    });
    t.result(3, {});
    const [finding] = lintTranscript(t.text()).findings;
    expect(finding).toMatchObject({
      ruleId: 'resume.replay.no-duplicate',
      line: last,
      expected: '"Hello"',
      actual: '"HelloHello"',
    });
  });

  it('accepts a replay that resets and streams chunks, and one without replayFrom that replays nothing', () => {
    const t = goodSession();
    t.client({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/resume',
      params: { sessionId: 'sess_1', cwd: '/tmp', replayFrom: { type: 'start' } },
    });
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [] });
    t.update({
      sessionUpdate: 'user_message_chunk',
      messageId: 'm1',
      content: { type: 'text', text: 'Hello' },
    });
    t.update({
      sessionUpdate: 'agent_message',
      messageId: 'a1',
      content: [{ type: 'text', text: 'Hi there.' }],
    });
    t.result(3, {});
    t.client({
      jsonrpc: '2.0',
      id: 4,
      method: 'session/resume',
      params: { sessionId: 'sess_1', cwd: '/tmp' },
    });
    t.update({ sessionUpdate: 'state_update', state: 'idle' });
    t.result(4, {});
    const result = lintTranscript(t.text());
    expect(result.findings).toEqual([]);
    const status = Object.fromEntries(result.results.map((rule) => [rule.id, rule.status]));
    expect(status['resume.replay.reset-before-chunks']).toBe('pass');
    expect(status['resume.replay.no-duplicate']).toBe('pass');
    expect(status['resume.no-replay-without-replay-from']).toBe('pass');
  });

  it('flags a session/update for a session the client does not know', () => {
    const t = goodSession();
    const line = t.update(
      { sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: { type: 'text', text: '…' } },
      'sess_x',
    );
    expect(failing(t.text())).toEqual([['update.session-id', line]]);
  });

  it('validates results by the method of the request they answer', () => {
    const t = new TranscriptBuilder();
    t.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp' } });
    const line = t.result(1, { sessionId: 42 });
    const [finding] = lintTranscript(t.text()).findings;
    expect(finding).toMatchObject({ ruleId: 'agent-message.schema', line, actual: '42', expected: 'string' });
  });

  it('reports invalid client messages as advisory only', () => {
    const t = new TranscriptBuilder().open();
    const line = t.client({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId: 'sess_1', prompt: [{ type: 'text' }] },
    });
    t.error(2, -32602);
    const result = lintTranscript(t.text());
    expect(result.findings.map((finding) => [finding.ruleId, finding.line])).toEqual([
      ['client-message.schema', line],
    ]);
    expect(result.failed).toBe(false);
  });

  it('reports unreadable lines with their numbers and keeps numbering across blank lines', () => {
    const t = new TranscriptBuilder().open();
    const notJson = t.raw('{"dir": "client->agent", ');
    const badDir = t.raw(JSON.stringify({ dir: 'sideways', msg: {} }));
    t.raw('');
    t.prompt(2, 'Hello');
    const response = t.result(2, {});
    t.turn('m1', 'Hello', 'a1');
    const result = lintTranscript(t.text());
    expect(result.findings.map((finding) => [finding.ruleId, finding.line])).toEqual([
      ['transcript.format', notJson],
      ['transcript.format', badDir],
      ['prompt.response.message-id', response],
    ]);
  });

  it('points at the same lines in a transcript recorded from a live run', async () => {
    const transcripts = new Map<string, string>();
    await runConformance({
      command: process.execPath,
      args: fixtureArgs('no-message-id'),
      timeoutMs: 8000,
      scenarios: ['lifecycle'],
      record: (scenario, text) => {
        transcripts.set(scenario, text);
      },
    });
    const text = transcripts.get('lifecycle')!;
    const result = lintTranscript(text);
    const failed = result.results.filter((rule) => rule.status === 'fail');
    expect(failed.map((rule) => rule.id)).toEqual(['prompt.response.message-id']);
    const { entries } = parseTranscript(text);
    for (const finding of failed[0]!.findings) {
      const entry = entries.find((candidate) => candidate.line === finding.line)!;
      expect(entry.dir).toBe('agent->client');
      expect(entry.msg).toMatchObject({ result: {} });
      expect(entry.msg).not.toHaveProperty('result.messageId');
    }
    expect(failed[0]!.findings).toHaveLength(3);
  });
});

describe('parseTranscript', () => {
  it('reads CRLF text, keeps t, and rejects a non-numeric t', () => {
    const text =
      '{"dir":"agent->client","t":1.5,"msg":{"a":1}}\r\n{"dir":"agent->client","t":"soon","msg":{}}\r\n';
    const parsed = parseTranscript(text);
    expect(parsed.entries).toEqual([{ index: 0, line: 1, dir: 'agent->client', t: 1.5, msg: { a: 1 } }]);
    expect(parsed.problems).toEqual([
      { line: 2, message: '"t" must be a number of milliseconds, got "soon"' },
    ]);
  });

  it('requires msg', () => {
    expect(parseTranscript('{"dir":"client->agent"}').problems[0]?.message).toMatch(/missing "msg"/);
  });
});

describe('state.running-before-idle in lint', () => {
  it('accepts a repeated idle snapshot but flags a new stop reason without a running in between', () => {
    const t = goodSession();
    t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    const line = t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' });
    expect(failing(t.text())).toEqual([['state.running-before-idle', line]]);
  });

  it('flags an idle that ends work in a new session before it was ever running', () => {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Hello');
    t.result(2, { messageId: 'm1' });
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [] });
    const line = t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    expect(failing(t.text())).toEqual([['state.running-before-idle', line]]);
  });
});

describe('cancel.ends-cancelled in lint', () => {
  function cancelled(afterMarker: number): { text: string; end: number } {
    const t = new TranscriptBuilder().open();
    t.prompt(2, 'Long');
    t.result(2, { messageId: 'm1' });
    t.update({ sessionUpdate: 'user_message', messageId: 'm1', content: [] });
    t.update({ sessionUpdate: 'state_update', state: 'running' });
    t.client({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess_1' } });
    t.client({ jsonrpc: '2.0', id: 3, method: '_acp_kit/read_marker', params: {} });
    // Chunks already on the wire when the cancel was sent: the agent had not read it yet.
    t.update({ sessionUpdate: 'agent_message_chunk', messageId: 'a1', content: { type: 'text', text: 'x' } });
    t.error(3, -32601);
    for (let i = 0; i < afterMarker; i++) {
      t.update({
        sessionUpdate: 'agent_message_chunk',
        messageId: 'a1',
        content: { type: 'text', text: 'y' },
      });
    }
    const end = t.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    return { text: t.text(), end };
  }

  it('skips a turn that ended before the agent could have read the cancel', () => {
    const result = lintTranscript(cancelled(0).text);
    const rule = result.results.find((candidate) => candidate.id === 'cancel.ends-cancelled')!;
    expect(rule.status).toBe('skip');
    expect(rule.reason).toMatch(/crossed/);
  });

  it('fails a turn that kept streaming after the agent read the cancel', () => {
    const { text, end } = cancelled(2);
    expect(failing(text)).toEqual([['cancel.ends-cancelled', end]]);
  });
});
