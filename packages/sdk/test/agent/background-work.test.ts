// #30 item 1: work moved to the background with `handle.runInBackground()` keeps running after
// the turn ends idle, and every state_update carries a complete, correct background list.
import type { ContentBlock } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentSession, type TerminalHandle, type ToolCallHandle } from '../../src/agent/index.js';
import { updates, wire } from './harness.js';

const info = { name: 'background-test', version: '0' };
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const states = (list: { sessionUpdate: string }[]) =>
  list.filter((u) => u.sessionUpdate === 'state_update') as unknown as {
    state: string;
    stopReason?: string;
    usage?: unknown;
    background?: unknown[] | null;
  }[];

/** An agent whose prompt starts a terminal (and a tool call showing it) and leaves both in the background. */
function backgroundAgent() {
  const started: { session?: AgentSession; terminal?: TerminalHandle; tool?: ToolCallHandle } = {};
  let ready!: () => void;
  const running = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const agent = new Agent({
    info,
    onPrompt: async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      const terminal = await session.terminal({ command: 'sleep 1' }, { cancellable: true });
      const tool = await session.toolCall(
        {
          title: 'run sleep',
          status: 'in_progress',
          content: [{ type: 'terminal', terminalId: terminal.terminalId }],
        },
        { cancellable: true },
      );
      await tool.runInBackground();
      await terminal.runInBackground();
      await session.idle('end_turn', { totalTokens: 1, inputTokens: 1, outputTokens: 0 });
      Object.assign(started, { session, terminal, tool });
      ready();
    },
  });
  return { agent, started, running };
}

describe('background work', () => {
  it('lists a backgrounded terminal-backed tool call once, as its terminal, after its announcement, and on every state update', async () => {
    const { agent, started, running } = backgroundAgent();
    const w = wire(agent);
    const sessionId = await w.client.newSession('/repo');
    await w.client.prompt(sessionId, [text('go')]);
    await running;
    const all = updates(w.received);
    const firstListing = all.findIndex(
      (u) =>
        u.sessionUpdate === 'state_update' && ((u as { background?: unknown[] }).background?.length ?? 0) > 0,
    );
    const announced = all.findIndex((u) => u.sessionUpdate === 'terminal_update');
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(firstListing).toBeGreaterThan(announced);
    const after = states(all.slice(firstListing));
    expect(after.length).toBeGreaterThan(0);
    for (const state of after) {
      expect(state.background).toEqual([{ type: 'terminal', terminalId: started.terminal!.terminalId }]);
    }
    expect(after.at(-1)).toMatchObject({ state: 'idle', stopReason: 'end_turn' });
  });

  it('keeps background work running through session/cancel, and drops it only after its exit status, with a repeated idle', async () => {
    const { agent, started, running } = backgroundAgent();
    const w = wire(agent);
    const sessionId = await w.client.newSession('/repo');
    await w.client.prompt(sessionId, [text('go')]);
    await running;
    await w.connection.sendNotification('session/cancel', { sessionId });
    await w.client.listSessions({});
    expect(started.terminal!.signal.aborted).toBe(false);
    expect(started.tool!.signal.aborted).toBe(false);
    const before = updates(w.received).length;
    await started.terminal!.output('done\n');
    await started.terminal!.exit({ exitCode: 0 });
    await started.tool!.update({ status: 'completed' });
    await w.until((r) => states(updates(r).slice(before)).some((s) => s.background?.length === 0));
    const tail = updates(w.received).slice(before);
    const exitAt = tail.findIndex((u) => (u as { exitStatus?: unknown }).exitStatus !== undefined);
    const dropAt = tail.findIndex(
      (u) => u.sessionUpdate === 'state_update' && (u as { background?: unknown[] }).background?.length === 0,
    );
    expect(exitAt).toBeGreaterThanOrEqual(0);
    expect(dropAt).toBeGreaterThan(exitAt);
    // The snapshot that drops it is a repeated idle: it ends nothing.
    expect(tail[dropAt]).toEqual({ sessionUpdate: 'state_update', state: 'idle', background: [] });
  });

  it('stops background work on terminal/cancel and tool_call/cancel', async () => {
    const { agent, started, running } = backgroundAgent();
    const w = wire(agent);
    const sessionId = await w.client.newSession('/repo');
    await w.client.prompt(sessionId, [text('go')]);
    await running;
    await w.connection.sendRequest('terminal/cancel', {
      sessionId,
      terminalId: started.terminal!.terminalId,
    });
    expect(started.terminal!.signal.aborted).toBe(true);
    expect(started.tool!.signal.aborted).toBe(false);
    await w.connection.sendRequest('tool_call/cancel', { sessionId, toolCallId: started.tool!.toolCallId });
    expect(started.tool!.signal.aborted).toBe(true);
  });

  it('reports the background list as of the replay position on session/resume', async () => {
    const { agent, started, running } = backgroundAgent();
    const first = wire(agent);
    const sessionId = await first.client.newSession('/repo');
    await first.client.prompt(sessionId, [text('go')]);
    await running;
    const second = wire(agent);
    await second.connection.sendRequest('session/resume', {
      sessionId,
      cwd: '/repo',
      replayFrom: { type: 'start' },
    });
    const resumed = states(updates(second.received));
    expect(resumed.at(-1)).toEqual({
      sessionUpdate: 'state_update',
      state: 'idle',
      background: [{ type: 'terminal', terminalId: started.terminal!.terminalId }],
    });
    const replayedTerminal = updates(second.received).findIndex((u) => u.sessionUpdate === 'terminal_update');
    expect(replayedTerminal).toBeGreaterThanOrEqual(0);
  });

  it('sends an agent message at session start and after idle without opening a turn', async () => {
    const agent = new Agent({
      info,
      onPrompt: async (prompt, { session }) => {
        await prompt.insert();
        await session.running();
        await session.idle('end_turn');
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/repo');
    const session = (await agent.session(sessionId))!;
    const hello = await session.agentMessage();
    await hello.replace([text('hello')]);
    await w.client.prompt(sessionId, [text('go')]);
    await w.until((r) => states(updates(r)).some((s) => s.state === 'idle'));
    const later = await session.agentMessage();
    await later.replace([text('later')]);
    await w.until((r) => updates(r).filter((u) => u.sessionUpdate === 'agent_message').length === 2);
    const kinds = updates(w.received).map(
      (u) => `${u.sessionUpdate}${'state' in u ? `:${String(u.state)}` : ''}`,
    );
    expect(kinds.filter((k) => k.startsWith('state_update'))).toEqual([
      'state_update:running',
      'state_update:idle',
    ]);
    expect(kinds[0]).toBe('agent_message');
    expect(kinds.at(-1)).toBe('agent_message');
    expect(session.activity).toBe('idle');
  });
});
