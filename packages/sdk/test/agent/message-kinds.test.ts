/**
 * Agent messages and thoughts, streamed and replaced whole, and a `config_option_update` the agent
 * sends on its own during a turn, over a real child process (the fixture agent in
 * ./fixtures/v2-agent.ts, prompt `kinds`): the update kinds on the wire, their replay under the
 * same message IDs, and what our Client's ConversationStore shows live and after the replay.
 */
import type { ContentBlock } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcessTransport } from '../../src/transports/index.js';
import { spawnV2Agent, spawnV2Client, turnsEnded, type V2Child } from './fixtures/spawn-v2-agent.js';

const TIMEOUT = 60_000;
const children: V2Child[] = [];
let transport: ChildProcessTransport | undefined;
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop()));
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
type Raw = { sessionUpdate: string; messageId?: string; content?: unknown; configOptions?: unknown };

describe('agent messages, thoughts and config_option_update from the agent', () => {
  it(
    'sends agent_thought_chunk, agent_thought, agent_message_chunk, agent_message and config_option_update, and replays the messages under their IDs',
    async () => {
      const a = await spawnV2Agent();
      children.push(a);
      const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
      await a.connection.sendRequest('session/prompt', { sessionId, prompt: [text('kinds')] });
      await a.until((u) => turnsEnded(u, sessionId));
      const live = a.of(sessionId).filter((u) => u.sessionUpdate !== 'state_update') as Raw[];
      expect(live.map((u) => u.sessionUpdate)).toEqual([
        'user_message',
        'agent_thought_chunk',
        'agent_thought_chunk',
        'agent_thought',
        'agent_message_chunk',
        'agent_message',
        'config_option_update',
      ]);
      const [, t1, t1b, t2, m1, m1b, options] = live as [Raw, Raw, Raw, Raw, Raw, Raw, Raw];
      expect(t1b.messageId).toBe(t1.messageId);
      expect(t2.messageId).not.toBe(t1.messageId);
      expect(m1b.messageId).toBe(m1.messageId);
      expect([t1.content, t1b.content, t2.content]).toEqual([
        text('thinking '),
        text('hard'),
        [text('a whole thought')],
      ]);
      expect([m1.content, m1b.content]).toEqual([text('draft'), [text('final answer')]]);
      expect(
        (options.configOptions as { configId: string; currentValue: unknown }[]).map((o) => [
          o.configId,
          o.currentValue,
        ]),
      ).toEqual([
        ['mode', 'ask'],
        ['verbose', true],
      ]);

      const before = a.of(sessionId).length;
      await a.connection.sendRequest('session/resume', {
        sessionId,
        cwd: '/repo',
        replayFrom: { type: 'start' },
      });
      const replayed = a
        .of(sessionId)
        .slice(before)
        .filter((u) => u.sessionUpdate !== 'state_update') as Raw[];
      // Every message comes back under the ID it was reported with; the options as they were sent.
      const ids = (updates: Raw[], kind: string) => [
        ...new Set(updates.filter((u) => u.sessionUpdate.startsWith(kind)).map((u) => u.messageId)),
      ];
      for (const kind of ['user_message', 'agent_thought', 'agent_message']) {
        expect(ids(replayed, kind), kind).toEqual(ids(live, kind));
      }
      expect(replayed.filter((u) => u.sessionUpdate === 'config_option_update')).toEqual([options]);
    },
    TIMEOUT,
  );

  it(
    'shows the thoughts and the replaced reply in our Client’s store, with the option the agent changed, live and after a replay',
    async () => {
      const started = await spawnV2Client('message-kinds-test');
      transport = started.transport;
      const { client, diagnostics } = started;
      const sessionId = await client.newSession('/repo');
      expect(
        client.store.snapshot(sessionId).configOptions?.find((o) => o.configId === 'verbose')?.currentValue,
      ).toBe(false);
      const end = await client.promptToEnd(sessionId, [text('kinds')]);
      expect(end.stopReason).toBe('end_turn');
      const shown = () =>
        client.store
          .snapshot(sessionId)
          .messages.map((m) => [
            m.key.split(':')[0],
            m.content.map((b) => (b as { text?: string }).text).join(''),
          ]);
      const live = shown();
      expect(live).toEqual([
        ['user_message', 'kinds'],
        ['agent_thought', 'thinking hard'],
        ['agent_thought', 'a whole thought'],
        ['agent_message', 'final answer'],
      ]);
      expect(
        client.store.snapshot(sessionId).configOptions?.find((o) => o.configId === 'verbose')?.currentValue,
      ).toBe(true);

      await client.resume(sessionId, { cwd: '/repo', replay: true });
      expect(shown()).toEqual(live);
      expect(client.store.snapshot(sessionId).messages.map((m) => m.key)).toHaveLength(4);
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );
});
