/**
 * `session/fork` of v1's unstable schema through the v1 agent bridge: an agent written with the
 * official SDK's v1 unstable entry advertises `sessionCapabilities.fork`; our v2 client (opted in to
 * the unstable surface) is offered `capabilities.session.fork`, forks a session, and a resume of the
 * fork with replay shows the source's messages under the same IDs, once each. An official v1 agent
 * that does not advertise fork is answered -32601 (v1-agent-as-v2.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { V1AgentBridge } from '../src/index.js';
import { clientOf, spawnFixture } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

describe('session/fork through the v1 agent bridge (unstable in both versions)', () => {
  it('is offered, forks, and the fork replays the source messages under their IDs', async () => {
    const agent = spawnFixture('official-v1-unstable-agent.ts');
    const bridge = new V1AgentBridge({ agent });
    const { client } = clientOf(bridge, { unstable: true });
    cleanup.push(async () => {
      client.close();
      bridge.close();
      await agent.shutdown({ graceMs: 500 });
    });
    const init = await client.initialize();
    expect(init.capabilities?.session?.fork).toEqual({});
    const sessionId = await client.newSession('/repo');
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'hello there' }]);
    const messages = (id: string) =>
      client.store
        .snapshot(id)
        .messages.map((m) => [
          m.kind,
          m.messageId,
          m.content.map((b) => ('text' in b ? b.text : '')).join(''),
        ]);
    const source = messages(sessionId);
    expect(source.map(([kind, , text]) => [kind, text])).toEqual([
      ['user_message', 'hello there'],
      ['agent_message', 'echo: hello there'],
    ]);

    const fork = await client.forkSession({ sessionId, cwd: '/repo/branch' }, { replay: true });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(messages(fork.sessionId)).toEqual(source);

    // The fork goes on alone.
    await client.promptToEnd(fork.sessionId, [{ type: 'text', text: 'second' }]);
    expect(
      messages(fork.sessionId)
        .slice(2)
        .map(([, , text]) => text),
    ).toEqual(['second', 'echo: second']);
    expect(messages(sessionId)).toEqual(source);
  });
});
