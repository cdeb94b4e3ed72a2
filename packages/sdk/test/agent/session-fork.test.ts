/**
 * `session/fork` (upstream's unstable surface): served by an agent that advertises
 * `capabilities.session.fork`; the fork is a new session holding the source's retained history
 * before the response, the source is not changed, and each goes on on its own.
 */
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/agent/index.js';
import type { Client } from '../../src/client/index.js';
import { refusal, wire } from './harness.js';

const options = (forks: boolean): AgentOptions => ({
  info: { name: 'fork-agent', version: '0.0.0' },
  unstable: true,
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.running();
    const text = prompt.content.map((b) => (b as { text?: string }).text ?? '').join('');
    const reply = await session.agentMessage();
    await reply.chunk({ type: 'text', text: `re: ${text}` });
    await session.idle('end_turn');
  },
  ...(forks ? { capabilities: { session: { fork: {} } } } : {}),
});

/** The messages a client's store holds for a session: kind, ID and text. */
const messages = (client: Client, sessionId: string) =>
  client.store
    .snapshot(sessionId)
    .messages.map((m) => [
      m.kind,
      m.messageId,
      m.content.map((b) => (b as { text?: string }).text ?? '').join(''),
    ]);

describe('session/fork', () => {
  it('starts the fork with the source’s history, under a new ID, and lets each go on without the other', async () => {
    const { client, agent } = wire(options(true));
    const init = await client.initialize();
    expect(init.capabilities?.session?.fork).toEqual({});
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'one' }]);
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'two' }]);
    const source = messages(client, sessionId);
    expect(source.map(([, , text]) => text)).toEqual(['one', 're: one', 'two', 're: two']);

    const fork = await client.forkSession({ sessionId, cwd: '/work/branch' }, { replay: true });
    expect(fork.sessionId).not.toBe(sessionId);
    // The same messages, IDs included (message IDs are per session), and idle.
    expect(messages(client, fork.sessionId)).toEqual(source);
    expect(client.store.snapshot(fork.sessionId).state.state).toBe('idle');
    expect((await agent.log.getSession(fork.sessionId))?.cwd).toBe('/work/branch');

    // The fork goes on; the source does not see it.
    await client.promptToEnd(fork.sessionId, [{ type: 'text', text: 'three' }]);
    expect(messages(client, fork.sessionId).map(([, , text]) => text)).toEqual([
      'one',
      're: one',
      'two',
      're: two',
      'three',
      're: three',
    ]);
    const other = wire(agent);
    await other.client.resume(sessionId, { cwd: '/work', replay: true });
    expect(messages(other.client, sessionId)).toEqual(source);
    // And the source goes on; the fork does not see it.
    await other.client.promptToEnd(sessionId, [{ type: 'text', text: 'four' }]);
    expect(messages(client, fork.sessionId)).toHaveLength(6);
    // Both are listed.
    const { sessions } = await client.listSessions();
    expect(sessions.map((s) => s.sessionId)).toEqual(expect.arrayContaining([sessionId, fork.sessionId]));
  });

  it('forks a session this connection never opened, and a fork of a fork', async () => {
    const first = wire(options(true));
    const { sessionId } = await first.client.createSession({ cwd: '/work' });
    await first.client.promptToEnd(sessionId, [{ type: 'text', text: 'hello' }]);
    const second = wire(first.agent);
    const fork = await second.client.forkSession({ sessionId, cwd: '/work' }, { replay: true });
    const again = await second.client.forkSession(
      { sessionId: fork.sessionId, cwd: '/work' },
      { replay: true },
    );
    expect(messages(second.client, again.sessionId).map(([, , text]) => text)).toEqual([
      'hello',
      're: hello',
    ]);
  });

  it('refuses an unknown source with -32002 and a relative cwd with -32602, and leaves no session behind', async () => {
    const { client, agent } = wire(options(true));
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const before = (await agent.log.listSessions({})).sessions.length;
    const unknown = await refusal(client.forkSession({ sessionId: 'sess_unknown', cwd: '/work' }));
    expect(unknown.code).toBe(-32002);
    const relative = await refusal(client.forkSession({ sessionId, cwd: 'work' }));
    expect(relative.code).toBe(-32602);
    expect((await agent.log.listSessions({})).sessions.length).toBe(before);
  });

  it('is not served (-32601 naming the method) nor advertised by an agent without capabilities.session.fork', async () => {
    const { client } = wire(options(false));
    const init = await client.initialize();
    expect(init.capabilities?.session?.fork ?? undefined).toBeUndefined();
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const error = await refusal(client.forkSession({ sessionId, cwd: '/work' }));
    expect(error.code).toBe(-32601);
    expect(JSON.stringify(error.data ?? error.message)).toContain('session/fork');
  });
});
