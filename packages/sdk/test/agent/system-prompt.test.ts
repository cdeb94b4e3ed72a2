/**
 * Client system prompts (upstream's unstable surface): an agent advertising
 * `capabilities.session.systemPrompt` takes `systemPrompt` on session/new, session/resume and
 * session/fork, keeps it with the session (a resume without one keeps it, a resume with one
 * replaces it, a fork inherits the source's), and refuses what it cannot apply with -32602 at the
 * pointer — before anything is created.
 */
import type { AgentCapabilities, SystemPrompt } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/agent/index.js';
import { refusal, wire } from './harness.js';

const seen: (SystemPrompt | null)[] = [];
const options = (capabilities: AgentCapabilities): AgentOptions => ({
  info: { name: 'system-prompt-agent', version: '0.0.0' },
  unstable: true,
  capabilities,
  async onPrompt(prompt, { session }) {
    seen.push(await session.systemPrompt());
    await prompt.insert();
    await session.idle('end_turn');
  },
});
const text = (value: string): [{ type: 'text'; text: string }] => [{ type: 'text', text: value }];

describe('systemPrompt on session lifecycle requests', () => {
  it('keeps the prompt of session/new, keeps it through a resume without one, and takes a resume’s replacement', async () => {
    seen.length = 0;
    const { client, agent } = wire(options({ session: { systemPrompt: {}, fork: {} } }));
    const init = await client.initialize();
    expect(init.capabilities?.session?.systemPrompt).toEqual({});
    const append: SystemPrompt = { mode: 'append', content: text('Answer briefly.') };
    const { sessionId } = await client.createSession({ cwd: '/work', systemPrompt: append });
    await client.promptToEnd(sessionId, text('hi'));
    const other = wire(agent);
    await other.client.resume(sessionId, { cwd: '/work' });
    await other.client.promptToEnd(sessionId, text('again'));
    const replaced: SystemPrompt = { mode: 'append', content: text('Answer in French.') };
    await other.client.resume(sessionId, { cwd: '/work', systemPrompt: replaced });
    await other.client.promptToEnd(sessionId, text('once more'));
    expect(seen).toEqual([append, append, replaced]);
    // A fork without one inherits the source's; a plain session has none.
    const fork = await client.forkSession({ sessionId, cwd: '/work' });
    expect(await (await agent.session(fork.sessionId))!.systemPrompt()).toEqual(replaced);
    const plain = await client.createSession({ cwd: '/work' });
    expect(await (await agent.session(plain.sessionId))!.systemPrompt()).toBeNull();
  });

  it('takes override only when advertised, and refuses an unknown mode, empty content and non-text blocks at their pointers, creating nothing', async () => {
    const appendOnly = wire(options({ session: { systemPrompt: {} } }));
    const before = (await appendOnly.agent.log.listSessions({})).sessions.length;
    const cases: [SystemPrompt, string, string][] = [
      [{ mode: 'override', content: text('Only review.') }, '/params/systemPrompt/mode', 'append'],
      [{ mode: '_prepend', content: text('x') }, '/params/systemPrompt/mode', 'append'],
      [{ mode: 'append', content: [] }, '/params/systemPrompt/content', 'a non-empty list of text blocks'],
      [
        { mode: 'append', content: [...text('a'), { type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
        '/params/systemPrompt/content/1/type',
        'text',
      ],
    ];
    for (const [systemPrompt, pointer, expected] of cases) {
      const error = await refusal(appendOnly.client.createSession({ cwd: '/work', systemPrompt }));
      expect(error.code).toBe(-32602);
      expect(error.data).toMatchObject({ pointer, expected });
    }
    expect((await appendOnly.agent.log.listSessions({})).sessions.length).toBe(before);

    const withOverride = wire(options({ session: { systemPrompt: { mode: { override: {} } } } }));
    const override: SystemPrompt = { mode: 'override', content: text('Only review.') };
    const { sessionId } = await withOverride.client.createSession({ cwd: '/work', systemPrompt: override });
    expect(await (await withOverride.agent.session(sessionId))!.systemPrompt()).toEqual(override);
  });

  it('refuses a system prompt sent to an agent that does not advertise the capability, on new and on resume', async () => {
    const { client } = wire(options({}));
    const init = await client.initialize();
    expect(init.capabilities?.session?.systemPrompt ?? undefined).toBeUndefined();
    const systemPrompt: SystemPrompt = { mode: 'append', content: text('Be brief.') };
    const onNew = await refusal(client.createSession({ cwd: '/work', systemPrompt }));
    expect(onNew.code).toBe(-32602);
    expect(onNew.data).toMatchObject({ pointer: '/params/systemPrompt' });
    const { sessionId } = await client.createSession({ cwd: '/work' });
    const onResume = await refusal(client.resume(sessionId, { cwd: '/work', systemPrompt }));
    expect(onResume.data).toMatchObject({ pointer: '/params/systemPrompt' });
  });
});
