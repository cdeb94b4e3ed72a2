import type { SessionNotification } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { AdapterSession } from '../../src/adapter.js';
import type { ClientPeer } from '../../src/agent/index.js';
import { MemoryHistoryStore, MemorySessionLog } from '../../src/history/index.js';
import { ErrorCodes } from '../../src/rpc/index.js';
import { tick, waitFor } from './harness.js';

/** A client peer that records what it is handed, in order (events: updates and a marker per receipt). */
function recordingPeer(label: string, events: string[]): ClientPeer {
  return {
    label,
    open: true,
    notify: async (params: SessionNotification) => {
      const update = params.update as { sessionUpdate: string; messageId?: string; state?: string };
      events.push(`${label}:${update.sessionUpdate}${update.state ? `=${update.state}` : ''}`);
    },
    request: async () => ({ outcome: { outcome: 'cancelled' } }) as never,
  };
}

const text = [{ type: 'text' as const, text: 'hello' }];

describe('AdapterSession, the seam for agents you do not own', () => {
  it('creates the session in the log it is given, under the adapter-chosen ID', async () => {
    const store = new MemoryHistoryStore();
    const adapter = new AdapterSession({ sessionId: 'their-id-1', cwd: '/work', history: store.log });
    await adapter.ready;
    expect(adapter.id).toBe('their-id-1');
    expect(await store.log.getSession('their-id-1')).toMatchObject({ sessionId: 'their-id-1', cwd: '/work' });
    // Opening it again over the same log finds the record instead of failing.
    await new AdapterSession({ sessionId: 'their-id-1', cwd: '/work', history: store.log }).ready;
  });

  it('answers a received prompt only once it is inserted, after its report reached the submitting client', async () => {
    const events: string[] = [];
    const adapter = new AdapterSession({ sessionId: 's1', cwd: '/work', history: new MemorySessionLog() });
    const client = recordingPeer('a', events);
    adapter.attach(client);
    const { prompt, response } = adapter.receivePrompt(text, {
      client,
      signal: new AbortController().signal,
    });
    response.then(({ messageId }) => events.push(`receipt:${messageId}`));
    await tick(30);
    expect(events).toEqual([]);
    const messageId = await prompt.insert({ messageId: 'their-msg-1' });
    await waitFor(() => events.length === 2);
    expect(events).toEqual(['a:user_message', `receipt:${messageId}`]);
    expect(messageId).toBe('their-msg-1');
    // The insertion is in the log, for every other client and for replay.
    const page = await adapter.session.log.read('s1', { afterSeq: 0, limit: 10 });
    expect(page.entries.map((e) => e.update.sessionUpdate)).toEqual(['user_message']);
  });

  it('holds live updates behind a replay the adapter sends, then lets them through in order', async () => {
    const events: string[] = [];
    const adapter = new AdapterSession({ sessionId: 's2', cwd: '/work', history: new MemorySessionLog() });
    await adapter.ready;
    const client = recordingPeer('b', events);
    adapter.attach(client, { replay: true });
    await adapter.session.running();
    await tick(10);
    await adapter.replayTo(client, { sessionUpdate: 'agent_message', messageId: 'old', content: [] });
    expect(events).toEqual(['b:agent_message']);
    await adapter.endReplay(client);
    await adapter.sendStateTo(client);
    await adapter.session.idle('end_turn');
    await waitFor(() => events.length === 4);
    expect(events).toEqual([
      'b:agent_message',
      'b:state_update=running',
      'b:state_update=running',
      'b:state_update=idle',
    ]);
    // The replayed update went to that client only, outside the log.
    const page = await adapter.session.log.read('s2', { afterSeq: 0, limit: 10 });
    expect(page.entries.map((e) => e.update.sessionUpdate)).toEqual(['state_update', 'state_update']);
  });

  it('answers a prompt still pending when the session is closed with -32800, and inserts nothing', async () => {
    const adapter = new AdapterSession({ sessionId: 's3', cwd: '/work', history: new MemorySessionLog() });
    await adapter.ready;
    const client = recordingPeer('c', []);
    const { prompt, response } = adapter.receivePrompt(text, {
      client,
      signal: new AbortController().signal,
    });
    adapter.close();
    await expect(response).rejects.toMatchObject({ code: ErrorCodes.RequestCancelled });
    expect(prompt.state).toBe('rejected');
    expect(adapter.session.closed.aborted).toBe(true);
  });

  it('starts the turn of a prompt cancelled before its insertion already cancelled', async () => {
    const adapter = new AdapterSession({ sessionId: 's4', cwd: '/work', history: new MemorySessionLog() });
    await adapter.ready;
    const client = recordingPeer('d', []);
    adapter.attach(client);
    const { prompt } = adapter.receivePrompt(text, { client, signal: new AbortController().signal });
    adapter.cancel();
    await prompt.insert();
    await adapter.session.running();
    expect(adapter.session.signal.aborted).toBe(true);
  });

  it('reports the unstable update kinds only when created with unstable: true', async () => {
    const subagent = {
      sessionUpdate: 'subagent_update',
      sessionId: 'child-1',
      state: { state: 'running' },
    } as const;
    const stable = new AdapterSession({ sessionId: 's5', cwd: '/work', history: new MemorySessionLog() });
    await expect(stable.session.update(subagent)).rejects.toThrow(/unstable: true/);

    const received: unknown[] = [];
    const peer: ClientPeer = {
      ...recordingPeer('e', []),
      notify: async (params) => void received.push(params.update),
    };
    const adapter = new AdapterSession({
      sessionId: 's6',
      cwd: '/work',
      history: new MemorySessionLog(),
      unstable: true,
    });
    await adapter.ready;
    adapter.attach(peer);
    await adapter.session.update(subagent);
    await adapter.session.update({ sessionUpdate: 'plan_removed', planId: 'p-1' });
    await waitFor(() => received.length === 2);
    expect(received).toEqual([subagent, { sessionUpdate: 'plan_removed', planId: 'p-1' }]);
  });
});
