import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions } from '../../src/agent/index.js';
import { MemorySessionLog, type SessionLog } from '../../src/history/index.js';
import { type Received, updates, wire } from './harness.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An agent that streams a ten-chunk reply to every prompt, slowly enough to join mid-turn. */
function streamingAgent(log: SessionLog, name: string): Agent {
  const options: AgentOptions = {
    info: { name, version: '0.0.0' },
    history: log,
    replay: 'as-retained',
    onPrompt(prompt, { session }) {
      void (async () => {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        for (let i = 0; i < 10; i++) {
          await reply.chunk({ type: 'text', text: `${i};` });
          await sleep(5);
        }
        await session.update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call_1',
          title: 'Read file',
          status: 'completed',
        } as never);
        await session.idle('end_turn');
      })();
    },
  };
  return new Agent(options);
}

/** A turn ended: an idle with a stop reason (a resume's state report is an idle without one). */
const isIdle = (r: Received[]): boolean =>
  updates(r, 'state_update').some((u) => {
    const state = u as { state?: string; stopReason?: string };
    return state.state === 'idle' && state.stopReason !== undefined;
  });

/** The updates from the first user_message on (the turn), as sent. */
const turn = (r: Received[]) => {
  const all = updates(r);
  return all.slice(all.findIndex((u) => u.sessionUpdate === 'user_message'));
};

describe('two agents that share nothing but one session log', () => {
  it('show a client on each the same turn, in the same order, to its idle', async () => {
    const log = new MemorySessionLog();
    const a = wire(streamingAgent(log, 'agent-a'));
    const b = wire(streamingAgent(log, 'agent-b'));
    await a.client.initialize();
    await b.client.initialize();
    const sessionId = await a.client.newSession('/repo');
    // Agent B has never seen the session; it finds it in the log.
    await b.client.resume(sessionId, { cwd: '/repo' });

    const messageId = await a.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await a.until(isIdle);
    await b.until(isIdle);

    const onA = turn(a.received);
    const onB = turn(b.received);
    expect(onA.length).toBeGreaterThan(12);
    expect(onB).toEqual(onA);
    expect(onA[0]).toMatchObject({ sessionUpdate: 'user_message', messageId });
    expect(onA.at(-1)).toMatchObject({
      sessionUpdate: 'state_update',
      state: 'idle',
      stopReason: 'end_turn',
    });
    const text = (w: typeof a) =>
      w.client.store.snapshot(sessionId).messages.find((m) => m.kind === 'agent_message')?.content;
    expect(text(b)).toEqual(text(a));
  });

  it('lets a client that joins the other agent mid-turn see the running state and the rest of the turn', async () => {
    const log = new MemorySessionLog();
    const a = wire(streamingAgent(log, 'agent-a'));
    const b = wire(streamingAgent(log, 'agent-b'));
    await a.client.initialize();
    await b.client.initialize();
    const sessionId = await a.client.newSession('/repo');
    await a.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await a.until((r) => updates(r, 'agent_message_chunk').length >= 3);

    await b.client.resume(sessionId, { cwd: '/repo', replay: true });
    // Activity comes from the log: the late client is told the turn is running, not idle.
    expect(b.client.store.snapshot(sessionId).state.state).toBe('running');
    await b.until(isIdle);
    await a.until(isIdle);
    const final = (w: typeof a) => w.client.store.snapshot(sessionId);
    expect(final(b).messages.map((m) => [m.kind, m.messageId, m.content])).toEqual(
      final(a).messages.map((m) => [m.kind, m.messageId, m.content]),
    );
    expect(final(b).state).toMatchObject({ state: 'idle', stopReason: 'end_turn' });
    // The replay carried the retained tool call too once the turn had it; here it arrived live.
    expect(updates(b.received, 'tool_call_update')).toHaveLength(1);
  });
});
