/**
 * `session/status` (upstream's unstable surface): served by an agent that advertises
 * `capabilities.session.status`; `open` with the current activity for a session in memory, `saved`
 * for one only the log holds, -32002 for one nobody knows, and never a side effect.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions } from '../../src/agent/index.js';
import { refusal, wire } from './harness.js';

let release: (() => void) | undefined;

const options = (serves: boolean): AgentOptions => ({
  info: { name: 'status-agent', version: '0.0.0' },
  unstable: true,
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.running();
    const text = prompt.content.map((b) => (b as { text?: string }).text ?? '').join('');
    if (text === 'hold') await new Promise<void>((resolve) => (release = resolve));
    await session.idle('end_turn');
  },
  ...(serves ? { capabilities: { session: { status: {} } } } : {}),
});

describe('session/status', () => {
  it('reports a session in memory open with its activity as it changes, to a connection not attached to it', async () => {
    const { client, agent } = wire(options(true));
    const init = await client.initialize();
    expect(init.capabilities?.session?.status).toEqual({});
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const other = wire(agent).client;
    expect(await other.sessionStatus(sessionId)).toEqual({ status: 'open', state: { state: 'idle' } });

    const held = client.promptToEnd(sessionId, [{ type: 'text', text: 'hold' }]);
    await expect.poll(async () => (await other.sessionStatus(sessionId)).state?.state).toBe('running');
    release!();
    await held;
    expect(await other.sessionStatus(sessionId)).toEqual({ status: 'open', state: { state: 'idle' } });
    // Asking attached nothing: the other client got no update of the session.
    expect(other.store.snapshot(sessionId).messages).toEqual([]);
  });

  it('reports a session only the log holds saved, without loading it; -32002 with the sessionId for an unknown one', async () => {
    const first = new Agent(options(true));
    const { client } = wire(first);
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'hello' }]);
    // A second agent process on the same log: it knows the session but holds nothing of it.
    const restarted = new Agent({ ...options(true), history: first.log });
    const asking = wire(restarted).client;
    expect(await asking.sessionStatus(sessionId)).toEqual({ status: 'saved' });
    expect(restarted.sessions.has(sessionId)).toBe(false);
    const unknown = await refusal(asking.sessionStatus('sess_nobody'));
    expect(unknown.code).toBe(-32002);
    expect(unknown.data).toMatchObject({ sessionId: 'sess_nobody' });
    // Once resumed it is open there.
    await asking.resume(sessionId, { cwd: '/work' });
    expect((await asking.sessionStatus(sessionId)).status).toBe('open');
  });

  it('reports a closed session saved', async () => {
    const { client } = wire(options(true));
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.closeSession(sessionId);
    expect(await client.sessionStatus(sessionId)).toEqual({ status: 'saved' });
  });

  it('is not served (-32601 naming the method) nor advertised by an agent without capabilities.session.status', async () => {
    const { client } = wire(options(false));
    const init = await client.initialize();
    expect(init.capabilities?.session?.status ?? undefined).toBeUndefined();
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const error = await refusal(client.sessionStatus(sessionId));
    expect(error.code).toBe(-32601);
    expect(JSON.stringify(error.data ?? error.message)).toContain('session/status');
  });
});
