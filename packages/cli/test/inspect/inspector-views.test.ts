/**
 * The inspector page's decisions, without a browser: its modules import without side effects (no
 * token, no document needed), and the pure functions of views.ts decide the words and tones the
 * page draws. The Chromium tests beside this file check the drawing.
 */
import { lintTranscript } from '@acp-kit/conformance/lint';
import { describe, expect, it } from 'vitest';
import {
  agentStatus,
  attachedSession,
  awaitsMore,
  lintView,
  localHelp,
  promptBlocked,
  startPlan,
  stateLine,
} from '../../src/inspector-app/src/views.js';

const state = (fields: Record<string, unknown>) =>
  ({
    state: 'idle',
    stopReason: null,
    usage: null,
    completedTurns: 0,
    connection: 'connected',
    ...fields,
  }) as never;

describe('the inspector page, without a browser', () => {
  it('imports its entry module without a token or a document, and starts nothing', async () => {
    // By URL: the page's modules are typed for the DOM, which this (Node) project's types leave out.
    const app = (file: string) => new URL(`../../src/inspector-app/src/${file}`, import.meta.url).href;
    const main = await import(app('main.ts'));
    expect(typeof main.startInspector).toBe('function');
    const { createState } = await import(app('state.ts'));
    const fresh = createState(() => {});
    expect(fresh.agent).toEqual({ phase: 'waiting' });
    expect(fresh.traffic.rows).toEqual([]);
  });

  it('shows the stop reason beside idle only, never one carried over from the last turn', () => {
    expect(stateLine(state({ state: 'idle', stopReason: 'end_turn', completedTurns: 1 }))).toBe(
      'state: idle (end_turn), turns: 1, connected',
    );
    expect(stateLine(state({ state: 'requires_action', stopReason: 'end_turn', completedTurns: 1 }))).toBe(
      'state: requires_action, turns: 1, connected',
    );
    expect(stateLine(state({ state: 'running', stopReason: 'cancelled' }))).not.toContain('cancelled');
  });

  it('does not count a turn still open as broken while live, and does once the transcript is over', () => {
    const lines = [
      {
        dir: 'client->agent',
        msg: { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } },
      },
      {
        dir: 'agent->client',
        msg: {
          jsonrpc: '2.0',
          method: 'session/update',
          params: { sessionId: 's', update: { sessionUpdate: 'user_message', messageId: 'm1', content: [] } },
        },
      },
      { dir: 'agent->client', msg: { jsonrpc: '2.0', id: 1, result: { messageId: 'm1' } } },
      {
        dir: 'agent->client',
        msg: {
          jsonrpc: '2.0',
          method: 'session/update',
          params: { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'running' } },
        },
      },
    ];
    const lint = lintTranscript(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const workEnds = lint.findings.filter((finding) => finding.ruleId === 'state.work-ends');
    expect(workEnds.length).toBe(1);
    expect(workEnds.every(awaitsMore)).toBe(true);
    const live = lintView(lint, true);
    expect(live.broken).not.toContain('state.work-ends');
    expect(live.open).toContain('state.work-ends');
    expect(live.shows(workEnds[0]!)).toBe(false);
    const over = lintView(lint, false);
    expect(over.broken).toContain('state.work-ends');
    expect(over.text).toContain('broken: ');
  });

  it('judges a file that is not a transcript as acp-kit lint does, live or not', () => {
    const lint = lintTranscript('these are my notes\n');
    expect(lintView(lint, false).broken).toEqual(['transcript.format']);
    expect(lintView(lint, true).broken).toEqual(['transcript.format']);
  });

  it('says why the prompt box is closed, and opens it for a connected session of a running agent', () => {
    const ready = { offline: false, agentRunning: true, sessionId: 's', sessionConnected: true };
    expect(promptBlocked(ready)).toBeUndefined();
    expect(promptBlocked({ ...ready, sessionId: '' })).toMatch(/Start a session/);
    expect(promptBlocked({ ...ready, agentRunning: false })).toMatch(/not running/);
    expect(promptBlocked({ ...ready, offline: true })).toMatch(/imported/);
    expect(promptBlocked({ ...ready, sessionConnected: false })).toMatch(/resume/);
  });

  it('initializes before session/new unless the same settings are already in force', () => {
    const chosen = { version: 2 as const, capabilities: '{}' };
    expect(startPlan(undefined, chosen)).toEqual(['initialize', 'session/new']);
    expect(startPlan(chosen, chosen)).toEqual(['session/new']);
    expect(startPlan({ version: 1, capabilities: '{}' }, chosen)).toEqual(['initialize', 'session/new']);
    expect(startPlan({ version: 2, capabilities: '{"a":1}' }, chosen)).toEqual(['initialize', 'session/new']);
  });

  it('learns the session a second client attached to from its own traffic (a reload replays it)', () => {
    const response = { dir: 'agent->client', kind: 'response', method: 'session/resume', sessionId: 's1' };
    expect(attachedSession(response, '')).toBe('s1');
    expect(attachedSession({ ...response, kind: 'error' }, '')).toBe('');
    expect(attachedSession({ ...response, method: 'session/prompt' }, 's1')).toBe('s1');
    expect(attachedSession({ ...response, dir: 'client->agent' }, '')).toBe('');
  });

  it('answers /help with the session commands when the agent offers no help command', () => {
    const commands = [{ name: 'run', description: 'runs a command' }];
    expect(localHelp('/help', commands)).toContain('/run — runs a command');
    expect(localHelp('/help', [...commands, { name: 'help', description: '' }])).toBeUndefined();
    expect(localHelp('/run ls', commands)).toBeUndefined();
  });

  it('gives the agent line a state and a tone of its own', () => {
    expect(agentStatus({ phase: 'waiting' }).tone).toBe('muted');
    expect(agentStatus({ phase: 'running', run: 1, description: 'pid 1: x' })).toEqual({
      text: 'agent run 1 started: pid 1: x',
      state: 'running',
      tone: 'good',
    });
    expect(agentStatus({ phase: 'ended', run: 2, reason: 'exited', code: 3 }).text).toBe(
      'agent run 2 ended: exited (exit code 3)',
    );
  });
});
