/**
 * `session/archive` and `session/unarchive` (upstream's unstable surface), with the `archived`
 * filter of `session/list`: served by an agent that advertises `capabilities.session.archive`.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions } from '../../src/agent/index.js';
import type { Client } from '../../src/client/index.js';
import { refusal, wire } from './harness.js';

const options = (archives: boolean): AgentOptions => ({
  info: { name: 'archive-agent', version: '0.0.0' },
  unstable: true,
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.running();
    const text = prompt.content.map((b) => (b as { text?: string }).text ?? '').join('');
    if (text === 'hold') {
      await new Promise<void>((resolve) => session.signal.addEventListener('abort', () => resolve()));
      if (session.signal.aborted) return session.idle('cancelled');
    }
    await session.idle('end_turn');
  },
  ...(archives ? { capabilities: { session: { archive: {} } } } : {}),
});

const listed = async (client: Client, archived?: string) =>
  (await client.listSessions(archived === undefined ? {} : { archived })).sessions.map((s) => [
    s.sessionId,
    s.archived,
  ]);

describe('session/archive and session/unarchive', () => {
  it('hides an archived session from the default list, lists it with only or include, and unarchiving brings it back', async () => {
    const { client, agent } = wire(options(true));
    const init = await client.initialize();
    expect(init.capabilities?.session?.archive).toEqual({});
    const { sessionId: kept } = await client.createSession({ cwd: '/work' });
    const { sessionId: old } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(old, [{ type: 'text', text: 'hello' }]);
    // Every listed session says whether it is archived.
    expect(await listed(client)).toEqual([
      [kept, false],
      [old, false],
    ]);

    await client.archiveSession(old);
    expect(await listed(client)).toEqual([[kept, false]]);
    expect(await listed(client, 'exclude')).toEqual([[kept, false]]);
    expect(await listed(client, 'only')).toEqual([[old, true]]);
    expect(await listed(client, 'include')).toEqual([
      [kept, false],
      [old, true],
    ]);
    // Both calls succeed when there is nothing to change.
    await client.archiveSession(old);
    await client.unarchiveSession(kept);

    await client.unarchiveSession(old);
    expect(await listed(client)).toEqual([
      [kept, false],
      [old, false],
    ]);
    // The history is kept: a resume with replay shows it.
    const other = wire(agent).client;
    await other.resume(old, { cwd: '/work', replay: true });
    expect(other.store.snapshot(old).messages.map((m) => m.kind)).toEqual(['user_message']);
  });

  it('closes a session with a turn running before archiving it (its work is aborted, it leaves memory) and keeps its history', async () => {
    const { client, agent } = wire(options(true));
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const receipt = client.prompt(sessionId, [{ type: 'text', text: 'hold' }]);
    await expect.poll(() => client.store.snapshot(sessionId).state.state).toBe('running');
    const live = agent.sessions.get(sessionId)!;
    await receipt;
    await client.archiveSession(sessionId);
    expect(live.signal.aborted).toBe(true);
    expect(agent.sessions.has(sessionId)).toBe(false);
    expect(await listed(client, 'only')).toEqual([[sessionId, true]]);
    // Unarchived and resumed, it goes on with its history.
    await client.unarchiveSession(sessionId);
    const second = wire(agent).client;
    await second.resume(sessionId, { cwd: '/work', replay: true });
    expect(second.store.snapshot(sessionId).messages.map((m) => m.kind)).toEqual(['user_message']);
    await second.promptToEnd(sessionId, [{ type: 'text', text: 'again' }]);
  });

  it('keeps the mark across a restart of the agent on the same log', async () => {
    const first = new Agent(options(true));
    const { client } = wire(first);
    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.archiveSession(sessionId);
    const restarted = wire(new Agent({ ...options(true), history: first.log })).client;
    expect(await listed(restarted)).toEqual([]);
    expect(await listed(restarted, 'only')).toEqual([[sessionId, true]]);
  });

  it('refuses an unknown session with -32002 and an archive filter it does not support with -32602 at /params/archived', async () => {
    const { client } = wire(options(true));
    await client.createSession({ cwd: '/work' });
    const archive = await refusal(client.archiveSession('sess_nobody'));
    expect(archive.code).toBe(-32002);
    expect(archive.data).toMatchObject({ sessionId: 'sess_nobody' });
    expect((await refusal(client.unarchiveSession('sess_nobody'))).code).toBe(-32002);
    const filter = await refusal(client.listSessions({ archived: '_trash' }));
    expect(filter.code).toBe(-32602);
    expect(filter.data).toMatchObject({ pointer: '/params/archived' });
  });

  it('is not served (-32601 naming the method) nor advertised without capabilities.session.archive, and the list reports no archive state', async () => {
    const { client } = wire(options(false));
    const init = await client.initialize();
    expect(init.capabilities?.session?.archive ?? undefined).toBeUndefined();
    const { sessionId } = await client.createSession({ cwd: '/work' });
    for (const call of [client.archiveSession(sessionId), client.unarchiveSession(sessionId)]) {
      const error = await refusal(call);
      expect(error.code).toBe(-32601);
    }
    expect((await client.listSessions()).sessions[0]).not.toHaveProperty('archived');
  });
});
