import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSequenceDiagram } from '@acp-kit/conformance/diagram';
import { analyzeTranscript } from '../src/playground/analyze.ts';
import { reconcile } from '../src/playground/conversation.ts';
import { transcriptDiagram } from '../src/playground/diagram.ts';

const sample = (name: string) =>
  readFileSync(new URL(`../public/playground/${name}.ndjson`, import.meta.url), 'utf8');

describe('the playground analysis', () => {
  it('accepts the good sample and links each prompt to its receipt and user message by messageId', () => {
    const analysis = analyzeTranscript(sample('good-session'));
    expect(analysis.lint.failed).toBe(false);
    expect(analysis.lint.findings).toEqual([]);
    expect(
      analysis.prompts.map((p) => [p.requestLine, p.responseLine, p.messageId, p.userMessageLine]),
    ).toEqual([
      [5, 7, 'mess_1', 6],
      [12, 13, 'mess_3', 14],
    ]);
    const userMessage = analysis.rows.find((r) => r.line === 6);
    expect(userMessage?.links).toEqual([{ label: 'submitted by prompt', line: 5 }]);
  });

  it('flags the premature response at its line, with no user message to link to', () => {
    const analysis = analyzeTranscript(sample('premature-response'));
    expect(analysis.lint.failed).toBe(true);
    const response = analysis.rows.find((r) => r.line === 6);
    expect(response?.findings.map((f) => f.ruleId)).toEqual(['prompt.user-message.reported']);
    expect(analysis.prompts[0]).toMatchObject({ outcome: 'ok', messageId: 'mess_1' });
    expect(analysis.prompts[0]?.userMessageLine).toBeUndefined();
  });

  it('reports unreadable lines as findings instead of throwing', () => {
    const analysis = analyzeTranscript('{"dir":"client->agent","msg":{}}\nnot json\n');
    expect(analysis.unlocated.map((f) => [f.ruleId, f.line])).toContainEqual(['transcript.format', 2]);
  });

  it('reconciles a prompt whose user message arrived first into one agent-reported entry', () => {
    const { entries } = analyzeTranscript(sample('good-session'));
    const [session] = reconcile(entries).sessions;
    expect(session?.messages.map((m) => [m.kind, m.messageId, m.origin])).toEqual([
      ['user_message', 'mess_1', 'agent'],
      ['agent_message', 'mess_2', 'agent'],
      ['user_message', 'mess_3', 'agent'],
      ['agent_message', 'mess_4', 'agent'],
    ]);
  });

  it('draws a warning note under the flagged message in the sequence diagram', () => {
    const analysis = analyzeTranscript(sample('premature-response'));
    const diagram = transcriptDiagram(analysis.rows, analysis.prompts);
    const noteAfter = diagram.steps.findIndex((s) => s.type === 'arrow' && s.id === 'line-6') + 1;
    expect(diagram.steps[noteAfter]).toMatchObject({ type: 'note', tone: 'warning' });
    expect(renderSequenceDiagram(diagram)).toContain('prompt.user-message.reported');
  });

  it('names the same prompt line in the diagram as the table does when a messageId is reused', () => {
    const line = (dir: string, msg: unknown) => JSON.stringify({ dir, msg });
    const prompt = (id: string, text: string) =>
      line('client->agent', {
        jsonrpc: '2.0',
        id,
        method: 'session/prompt',
        params: { sessionId: 'sess_1', prompt: [{ type: 'text', text }] },
      });
    const transcript = [
      prompt('a', 'first'),
      line('agent->client', {
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 'sess_1',
          update: {
            sessionUpdate: 'user_message',
            messageId: 'mess_1',
            content: [{ type: 'text', text: 'first' }],
          },
        },
      }),
      line('agent->client', { jsonrpc: '2.0', id: 'a', result: { messageId: 'mess_1' } }),
      prompt('b', 'second'),
      // The agent wrongly reuses mess_1 for the second submission.
      line('agent->client', { jsonrpc: '2.0', id: 'b', result: { messageId: 'mess_1' } }),
    ].join('\n');
    const analysis = analyzeTranscript(transcript);
    const tableLink = analysis.rows
      .find((r) => r.line === 2)
      ?.links.find((l) => l.label === 'submitted by prompt');
    expect(tableLink?.line).toBe(1);
    const diagram = transcriptDiagram(analysis.rows, analysis.prompts);
    const arrow = diagram.steps.find((s) => s.type === 'arrow' && s.id === 'line-2');
    expect(arrow).toMatchObject({ detail: expect.stringContaining(`prompt line ${tableLink?.line}`) });
  });
});
