import { describe, expect, it } from 'vitest';
import { Agent, type AgentSession, type PendingPrompt } from '../../src/agent/index.js';
import { MemoryHistoryStore } from '../../src/history/index.js';
import { updates, waitFor, wire } from './harness.js';

const info = { name: 'test-agent', version: '0.0.0' };
const text = (t: string) => [{ type: 'text' as const, text: t }] as [{ type: 'text'; text: string }];

/** An agent that inserts each prompt, streams "ok" in two chunks, and ends the turn. */
function echoAgent(
  history = new MemoryHistoryStore(),
  replay: 'full' | 'chunks' | 'as-retained' = 'as-retained',
) {
  return new Agent({
    info,
    history: history.log,
    replay,
    onPrompt: async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: 'o' });
      await reply.chunk({ type: 'text', text: 'k' });
      await session.idle('end_turn', { totalTokens: 3, inputTokens: 1, outputTokens: 2 });
    },
  });
}

describe('agent sessions', () => {
  it('reports running, the streamed reply and idle with stopReason and usage after the insertion receipt', async () => {
    const w = wire(echoAgent());
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, text('hi'));
    await w.until((r) => updates(r, 'state_update').some((u) => 'state' in u && u.state === 'idle'));
    const kinds = updates(w.received).map((u) => ('state' in u ? `state:${u.state}` : u.sessionUpdate));
    expect(kinds).toEqual([
      'user_message',
      'state:running',
      'agent_message_chunk',
      'agent_message_chunk',
      'state:idle',
    ]);
    const snapshot = w.client.store.snapshot(sessionId);
    expect(snapshot.state).toMatchObject({
      state: 'idle',
      stopReason: 'end_turn',
      completedTurns: 1,
      usage: { totalTokens: 3 },
    });
  });

  it('reports requires_action while a permission request is pending, then running again', async () => {
    const agent = new Agent({
      info,
      onPrompt: async (prompt, { session, client }) => {
        await prompt.insert();
        await session.running();
        const answer = await session.requestPermission(
          { title: 'Write?', options: [{ optionId: 'yes', name: 'Yes', kind: 'allow_once' }] },
          client,
        );
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: answer.outcome.outcome });
        await session.idle('end_turn');
      },
    });
    const w = wire(agent, () => ({ outcome: { outcome: 'selected', optionId: 'yes' } }));
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, text('/write'));
    await w.until((r) => updates(r, 'state_update').some((u) => 'state' in u && u.state === 'idle'));
    const states = updates(w.received, 'state_update').map((u) => ('state' in u ? u.state : ''));
    expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
    expect(updates(w.received, 'agent_message_chunk')[0]).toMatchObject({ content: { text: 'selected' } });
  });

  it('lets the agent report output with no prompt at all', async () => {
    const agent = new Agent({ info, onPrompt: () => undefined });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const session = agent.sessions.get(sessionId);
    const note = await session!.agentMessage();
    await note.replace([{ type: 'text', text: 'Background task finished.' }]);
    await w.until((r) => updates(r, 'agent_message').length === 1);
    expect(w.client.store.snapshot(sessionId).messages).toMatchObject([
      { kind: 'agent_message', messageId: note.messageId, content: [{ text: 'Background task finished.' }] },
    ]);
  });

  it('replays retained messages with their original IDs, resetting streamed ones before their chunks', async () => {
    const history = new MemoryHistoryStore();
    const agent = echoAgent(history);
    const first = wire(agent);
    const sessionId = await first.client.newSession('/work');
    const id = await first.client.prompt(sessionId, text('hi'));
    await first.until((r) => updates(r, 'state_update').length === 2);

    const second = wire(agent);
    await second.client.resume(sessionId, { cwd: '/work', replay: true });
    const replayed = updates(second.received)
      .filter((u) => u.sessionUpdate !== 'state_update')
      .map((u) => [
        u.sessionUpdate,
        'messageId' in u ? u.messageId : '',
        'content' in u ? u.content : undefined,
      ]);
    const agentChunk = updates(first.received, 'agent_message_chunk')[0];
    const agentId = agentChunk && 'messageId' in agentChunk ? agentChunk.messageId : '';
    expect(replayed).toEqual([
      ['user_message', id, text('hi')],
      ['agent_message', agentId, []],
      ['agent_message_chunk', agentId, { type: 'text', text: 'o' }],
      ['agent_message_chunk', agentId, { type: 'text', text: 'k' }],
    ]);
    // The response to session/resume comes after the replay.
    const lastUpdate = second.received.findLastIndex((r) => r.type === 'update');
    const resumeResponse = second.received.findLastIndex((r) => r.type === 'response');
    expect(lastUpdate).toBeLessThan(resumeResponse);
  });

  it('resumes without replay when replayFrom is omitted', async () => {
    const agent = echoAgent();
    const first = wire(agent);
    const sessionId = await first.client.newSession('/work');
    await first.client.prompt(sessionId, text('hi'));
    await first.until((r) => updates(r, 'state_update').length === 2);
    const second = wire(agent);
    await second.client.resume(sessionId, { cwd: '/work' });
    // Only the current-state snapshot, no message replayed.
    expect(updates(second.received)).toEqual([{ sessionUpdate: 'state_update', state: 'idle' }]);
  });

  it('leaves live-only messages out of replay and keeps imported ones in it', async () => {
    const agent = new Agent({ info, onPrompt: (prompt) => void prompt.insert({ retain: false }) });
    const first = wire(agent);
    const sessionId = await first.client.newSession('/work');
    const liveOnly = await first.client.prompt(sessionId, text('/status'));
    const imported = await agent.sessions
      .get(sessionId)!
      .importMessage('user_message', text('from an older tool'));
    const second = wire(agent);
    await second.client.resume(sessionId, { cwd: '/work', replay: true });
    const ids = updates(second.received).flatMap((u) => ('messageId' in u ? [u.messageId] : []));
    expect(ids).toEqual([imported]);
    expect(ids).not.toContain(liveOnly);
  });

  it('answers an unsupported replay cursor with -32602 naming replayFrom', async () => {
    const agent = echoAgent();
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await expect(
      w.connection.sendRequest('session/resume', {
        sessionId,
        cwd: '/work',
        replayFrom: { type: '_from_message', messageId: 'x' },
      }),
    ).rejects.toMatchObject({ code: -32602, data: { pointer: '/params/replayFrom/type' } });
  });

  it('keeps sending updates to other clients after one client disconnects mid-turn', async () => {
    const held: PendingPrompt[] = [];
    let session: AgentSession | undefined;
    const agent = new Agent({
      info,
      onPrompt: (prompt, context) => {
        held.push(prompt);
        session = context.session;
      },
    });
    const a = wire(agent);
    const sessionId = await a.client.newSession('/work');
    const b = wire(agent);
    await b.client.resume(sessionId, { cwd: '/work' });
    const receipt = a.client.prompt(sessionId, text('work'));
    await waitFor(() => held.length === 1);
    await held[0]!.insert();
    await receipt;
    await session!.running();
    a.client.close();
    const reply = await session!.agentMessage();
    await reply.chunk({ type: 'text', text: 'still here' });
    await session!.idle('end_turn');
    // The turn's idle (with its stop reason): b already holds the idle its resume reported.
    await b.until((r) =>
      updates(r, 'state_update').some((u) => 'state' in u && u.state === 'idle' && 'stopReason' in u),
    );
    expect(updates(b.received, 'agent_message_chunk')).toHaveLength(1);
  });

  it('aborts the session signal on session/cancel', async () => {
    let session: AgentSession | undefined;
    const agent = new Agent({
      info,
      onPrompt: async (prompt, context) => {
        session = context.session;
        await prompt.insert();
        await context.session.running();
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, text('long task'));
    await waitFor(() => session?.activity === 'running');
    const signal = session!.signal;
    await w.client.cancel(sessionId);
    await waitFor(() => signal.aborted);
    expect(signal.aborted).toBe(true);
  });

  it('withdraws a pending permission request from the client when the session is cancelled', async () => {
    let withdrawn: AbortSignal | undefined;
    const agent = new Agent({
      info,
      onPrompt: async (prompt, { session, client }) => {
        await prompt.insert();
        await session.running();
        const answer = await session.requestPermission(
          { title: 'Write?', options: [{ optionId: 'yes', name: 'Yes', kind: 'allow_once' }] },
          client,
        );
        await session.idle(answer.outcome.outcome === 'cancelled' ? 'cancelled' : 'end_turn');
      },
    });
    const w = wire(agent, (_request, { signal }) => {
      withdrawn = signal;
      return new Promise(() => undefined); // the user never answers
    });
    const sent: unknown[] = [];
    w.connection.onMessage((direction, message) => direction === 'out' && sent.push(message));
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, text('/write'));
    await waitFor(() => withdrawn !== undefined);
    await w.client.cancel(sessionId);
    await waitFor(() => withdrawn!.aborted);
    await w.until((r) =>
      updates(r, 'state_update').some((u) => 'stopReason' in u && u.stopReason === 'cancelled'),
    );
    // The client closed the withdrawn request itself, answering `cancelled` for the user.
    await waitFor(() => sent.some((m) => (m as { result?: unknown }).result !== undefined));
    expect(sent).toContainEqual(expect.objectContaining({ result: { outcome: { outcome: 'cancelled' } } }));
  });

  it('reports a failure after insertion as idle with stop reason error and the error object', async () => {
    const agent = new Agent({
      info,
      onPrompt: async (prompt, { session }) => {
        await prompt.insert();
        await session.running();
        await session.idle('error', undefined, { code: -32603, message: 'model unavailable' });
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, text('hi'));
    await w.until((r) => updates(r, 'state_update').length === 2);
    expect(updates(w.received, 'state_update')[1]).toEqual({
      sessionUpdate: 'state_update',
      state: 'idle',
      stopReason: 'error',
      error: { code: -32603, message: 'model unavailable' },
    });
    expect(w.client.store.snapshot(sessionId).state).toMatchObject({ state: 'idle', stopReason: 'error' });
  });
});
