/**
 * #29, `session/fork`: the official SDK's experimental v2 client (`@agentclientprotocol/sdk/
 * experimental/v2`) forks a session of the real `acp-kit agent` process over stdio. The agent
 * advertises `capabilities.session.fork`; the fork's ID is new; a resume of the fork with replay
 * replays the source's messages under their IDs; a prompt in the fork is answered with a receipt;
 * the official client parses every answer with its own zod schemas (it reports a failure on
 * console.error) and every notification parses with the official notification schema.
 */
import { client as officialClient } from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, officialSchemas, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

type Update = { sessionUpdate: string; messageId?: string; state?: string; stopReason?: string };

/** Resolves once the wire holds a message `test` accepts (the agent process writes asynchronously). */
async function until(agent: AgentProcess, test: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !test(); waited += 20) {
    if (waited > 60_000) throw new Error(`timed out waiting for ${what}\n${agent.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the official v2 client forking a session of acp-kit agent', () => {
  it('gets a new session holding the source’s messages, and a receipt for a prompt in it', async () => {
    const schemas = await officialSchemas();
    const errors = vi.spyOn(console, 'error');
    const agent = spawnAgentProcess(0, ['--unstable']);
    running = agent;
    const updatesOf = (sessionId: string): Update[] =>
      agent.wire
        .filter((m) => m.method === 'session/update')
        .map((m) => m.params as { sessionId: string; update: Update })
        .filter((p) => p.sessionId === sessionId)
        .map((p) => p.update);
    const turnEnded = (sessionId: string, count: number) => () =>
      updatesOf(sessionId).filter((u) => u.state === 'idle' && u.stopReason !== undefined).length >= count;

    const outcome = await officialClient({ name: 'interop-official-fork' }).connectWith(
      agent.stream,
      async (ctx) => {
        const init = await ctx.request('initialize', {
          protocolVersion: 2,
          info: { name: 'official-client', version: '2.4.0' },
          capabilities: {},
        });
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        const first = await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'remember the fork' }],
        });
        await until(agent, turnEnded(sessionId, 1), 'the first turn to end');
        // Unstable: the official client's request map has no type for it (its zod schemas check it).
        const fork = (await ctx.request('session/fork' as never, { sessionId, cwd: '/tmp' } as never)) as {
          sessionId: string;
        };
        const seenBeforeResume = agent.wire.length;
        await ctx.request('session/resume', {
          sessionId: fork.sessionId,
          cwd: '/tmp',
          replayFrom: { type: 'start' },
        });
        const replayed = agent.wire
          .slice(seenBeforeResume)
          .filter((m) => m.method === 'session/update')
          .map((m) => (m.params as { update: Update }).update);
        const inFork = await ctx.request('session/prompt', {
          sessionId: fork.sessionId,
          prompt: [{ type: 'text', text: 'and go on' }],
        });
        await until(agent, turnEnded(fork.sessionId, 1), 'the fork’s turn to end');
        return { init, sessionId, first, fork, replayed, inFork };
      },
    );

    // Advertised on the wire (the official client's parsed copy keeps only the stable capabilities).
    const initAnswer = agent.wire.find(
      (m) => (m.result as { protocolVersion?: unknown })?.protocolVersion === 2,
    );
    const advertised = initAnswer?.result as { capabilities?: { session?: { fork?: unknown } } } | undefined;
    expect(advertised?.capabilities?.session?.fork).toEqual({});
    expect(outcome.fork.sessionId).not.toBe(outcome.sessionId);
    // The replay of the fork carries the source's user message under its ID, and its reply.
    const replayedUser = outcome.replayed.filter((u) => u.sessionUpdate === 'user_message');
    expect(replayedUser.map((u) => u.messageId)).toEqual([outcome.first.messageId]);
    expect(outcome.replayed.some((u) => u.sessionUpdate === 'agent_message')).toBe(true);
    // The prompt in the fork got its own receipt; the source saw nothing of it.
    expect(typeof outcome.inFork.messageId).toBe('string');
    expect(outcome.inFork.messageId).not.toBe(outcome.first.messageId);
    expect(updatesOf(outcome.sessionId).some((u) => u.messageId === outcome.inFork.messageId)).toBe(false);

    const rejected = agent.wire
      .filter((m) => m.method === 'session/update')
      .map((m) => schemas.notification.safeParse(m.params))
      .filter((r) => !r.success);
    expect(rejected).toEqual([]);
    expect(errors.mock.calls).toEqual([]);
  });
});
