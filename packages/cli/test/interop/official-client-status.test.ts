/**
 * #29, `session/status`: the official SDK's experimental v2 client asks the real `acp-kit agent`
 * process over stdio about its sessions. The agent advertises `capabilities.session.status`; a
 * session it holds is `open` with its activity, a closed one is `saved`, an unknown one is -32002;
 * the official client parses each answer with its own zod schemas (a failure shows on
 * console.error), and asking attaches nothing.
 */
import { client as officialClient } from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, OFFICIAL_INITIALIZE, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('the official v2 client asking acp-kit agent for session/status', () => {
  it('gets open with the activity for a live session, saved once closed, and -32002 for an unknown one', async () => {
    const errors = vi.spyOn(console, 'error');
    const agent = spawnAgentProcess(0, ['--unstable']);
    running = agent;
    const idleWithReason = (sessionId: string) =>
      agent.wire.some((m) => {
        const p = m.params as { sessionId?: string; update?: { state?: string; stopReason?: string } };
        return (
          m.method === 'session/update' && p.sessionId === sessionId && p.update?.stopReason !== undefined
        );
      });

    const outcome = await officialClient({ name: 'interop-official-status' }).connectWith(
      agent.stream,
      async (ctx) => {
        await ctx.request('initialize', OFFICIAL_INITIALIZE);
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        // Unstable: the official client's request map has no type for it (its zod schemas check it).
        const status = (id: string) => ctx.request('session/status' as never, { sessionId: id } as never);
        const fresh = await status(sessionId);
        await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
        for (let waited = 0; !idleWithReason(sessionId); waited += 20) {
          if (waited > 60_000) throw new Error(`the turn never ended\n${agent.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const afterTurn = await status(sessionId);
        await ctx.request('session/close', { sessionId });
        const closed = await status(sessionId);
        const unknown = await status('sess_nobody').then(
          () => undefined,
          (error: unknown) => error as { code?: number; data?: unknown },
        );
        return { fresh, afterTurn, closed, unknown };
      },
    );

    const initAnswer = agent.wire.find(
      (m) => (m.result as { protocolVersion?: unknown })?.protocolVersion === 2,
    );
    const advertised = initAnswer?.result as
      | { capabilities?: { session?: { status?: unknown } } }
      | undefined;
    expect(advertised?.capabilities?.session?.status).toEqual({});
    expect(outcome.fresh).toEqual({ status: 'open', state: { state: 'idle' } });
    expect(outcome.afterTurn).toEqual({ status: 'open', state: { state: 'idle' } });
    expect(outcome.closed).toEqual({ status: 'saved' });
    expect(outcome.unknown?.code).toBe(-32002);
    expect(outcome.unknown?.data).toMatchObject({ sessionId: 'sess_nobody' });
    expect(errors.mock.calls).toEqual([]);
  });
});
