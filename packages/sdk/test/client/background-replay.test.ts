// #30 item 2: a resume with replay into a fresh store yields the same background view (and the
// same messages, out-of-turn ones included, in the same places) as the store that followed the session live, against our Agent.
import type { ContentBlock } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { Agent, type TerminalHandle, type ToolCallHandle } from '../../src/agent/index.js';
import type { ConversationSnapshot } from '../../src/client/index.js';
import { updates, waitFor, wire } from '../agent/harness.js';

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const listed = (u: { sessionUpdate: string }) => (u as { background?: unknown[] }).background;

/** What a UI shows of background work and message placement (positions included). */
function shown(snapshot: ConversationSnapshot) {
  return {
    background: snapshot.background,
    messages: snapshot.messages.map((m) => [m.key, m.position, m.localId]),
  };
}

describe('background work after a resume with replay', () => {
  it('gives a fresh store the background view and out-of-turn messages of the store that followed live', async () => {
    const handles: { terminal?: TerminalHandle; tool?: ToolCallHandle } = {};
    const agent = new Agent({
      info: { name: 'background-replay', version: '0' },
      onSessionStarted: async (session) => {
        await (await session.agentMessage()).replace([text('Hello before any prompt.')]);
      },
      onPrompt: async (prompt, { session }) => {
        await prompt.insert();
        await session.running();
        const terminal = await session.terminal({ command: 'sleep 5' }, { cancellable: true });
        await terminal.output('tick 1\n');
        const tool = await session.toolCall(
          { title: 'subtask', status: 'in_progress' },
          { cancellable: true },
        );
        await terminal.runInBackground();
        await tool.runInBackground();
        await (await session.agentMessage()).replace([text('Both run in the background.')]);
        await session.idle('end_turn');
        Object.assign(handles, { terminal, tool });
      },
    });
    const live = wire(agent);
    const sessionId = await live.client.newSession('/repo');
    // The greeting goes out after the session/new response; the prompt waits for it.
    await live.until((r) => updates(r, 'agent_message').length === 1);
    await live.client.promptToEnd(sessionId, [text('go')]);
    await waitFor(() => handles.tool !== undefined);
    // After the turn: the terminal keeps writing, the tool call ends (and leaves the list), the
    // agent says so outside any turn.
    await handles.terminal!.output('tick 2\n');
    await handles.tool!.update({ status: 'completed' });
    await (await (await agent.session(sessionId))!.agentMessage()).replace([text('The subtask is done.')]);
    await live.until((r) => updates(r, 'agent_message').length === 3);

    const liveView = shown(live.client.store.snapshot(sessionId));
    expect(liveView.background).toEqual([
      expect.objectContaining({
        type: 'terminal',
        id: handles.terminal!.terminalId,
        resolved: true,
        terminal: expect.objectContaining({ output: 'tick 1\ntick 2\n' }),
      }),
    ]);
    // Greeting, prompt, reply, the note after the turn: in report order, none but the
    // prompt tied to this client's submission.
    expect(live.client.store.snapshot(sessionId).messages.map((m) => m.content)).toEqual([
      [text('Hello before any prompt.')],
      [text('go')],
      [text('Both run in the background.')],
      [text('The subtask is done.')],
    ]);
    // The tool call left the list only after its final status: nothing to report.
    expect(updates(live.received, 'state_update').some((u) => listed(u)?.length === 2)).toBe(true);

    const fresh = wire(agent);
    await fresh.client.resume(sessionId, { cwd: '/repo', replay: true });
    const replayed = shown(fresh.client.store.snapshot(sessionId));
    // The same view, but for the localId only the submitting client knows.
    expect(replayed.background).toEqual(liveView.background);
    expect(replayed.messages).toEqual(liveView.messages.map(([key, position]) => [key, position, null]));
  });
});
