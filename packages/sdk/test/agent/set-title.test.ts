/**
 * `session/set_title` (upstream's unstable surface): served by an agent that advertises
 * `capabilities.session.title`, for any session it would list; the title is normalized (trimmed),
 * stored, answered and reported to attached clients as `session_info_update`.
 */
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/agent/index.js';
import { refusal, updates, wire } from './harness.js';

const options = (titled: boolean): AgentOptions => ({
  info: { name: 'title-agent', version: '0.0.0' },
  unstable: true,
  onPrompt: (prompt) => void prompt.insert(),
  ...(titled ? { capabilities: { session: { title: {} } } } : {}),
});

describe('session/set_title', () => {
  it('advertises capabilities.session.title, stores the trimmed title, answers it and reports it to attached clients', async () => {
    const { client, agent, received, until } = wire(options(true));
    const init = await client.initialize();
    expect(init.capabilities?.session?.title).toEqual({});
    const { sessionId } = await client.createSession({ cwd: '/work' });
    expect(await client.setTitle(sessionId, '  Fix the flaky login test \n')).toBe(
      'Fix the flaky login test',
    );
    await until((r) => updates(r, 'session_info_update').length > 0);
    expect(updates(received, 'session_info_update')[0]).toMatchObject({ title: 'Fix the flaky login test' });
    expect((await agent.log.getSession(sessionId))?.title).toBe('Fix the flaky login test');
    const { sessions } = await client.listSessions();
    expect(sessions.find((s) => s.sessionId === sessionId)?.title).toBe('Fix the flaky login test');
  });

  it('retitles a session this connection never opened', async () => {
    const first = wire(options(true));
    const { sessionId } = await first.client.createSession({ cwd: '/work' });
    const second = wire(first.agent);
    expect(await second.client.setTitle(sessionId, 'From elsewhere')).toBe('From elsewhere');
    expect((await first.agent.log.getSession(sessionId))?.title).toBe('From elsewhere');
  });

  it('refuses a title empty after trimming with -32602 at /params/title, and an unknown session with -32002', async () => {
    const { client } = wire(options(true));
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const empty = await refusal(client.setTitle(sessionId, '   '));
    expect(empty.code).toBe(-32602);
    expect(empty.data).toMatchObject({ pointer: '/params/title' });
    const unknown = await refusal(client.setTitle('sess_unknown', 'Title'));
    expect(unknown.code).toBe(-32002);
  });

  it('is not served (-32601 naming the method) by an agent that does not advertise capabilities.session.title', async () => {
    const { client } = wire(options(false));
    const init = await client.initialize();
    expect(init.capabilities?.session?.title).toBeUndefined();
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const refused = await refusal(client.setTitle(sessionId, 'Title'));
    expect(refused.code).toBe(-32601);
    expect(refused.data).toMatchObject({ method: 'session/set_title' });
  });
});
