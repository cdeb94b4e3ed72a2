/**
 * #29, provider configuration: the official SDK's experimental v2 client lists the LLM providers
 * of the real `acp-kit agent` process over stdio, re-routes the main one with `providers/set`
 * (which `/status` then reports, and `providers/list` shows without its headers), disables the
 * optional one, and is refused disabling the required one. The official client parses every
 * answer with its own zod schemas of the unstable surface (a failure shows on console.error).
 */
import { client as officialClient } from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, OFFICIAL_INITIALIZE, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

type Provider = { providerId: string; current?: { apiType: string; baseUrl: string } | null };

describe('the official v2 client configuring the providers of acp-kit agent', () => {
  it('lists, re-routes and disables providers, never sees the headers, and cannot disable the required one', async () => {
    const errors = vi.spyOn(console, 'error');
    const agent = spawnAgentProcess(0, ['--unstable']);
    running = agent;
    const request = <T>(
      ctx: { request: (method: never, params: never) => Promise<unknown> },
      method: string,
      params: unknown,
    ) => ctx.request(method as never, params as never) as Promise<T>;
    const outcome = await officialClient({ name: 'interop-official-providers' }).connectWith(
      agent.stream,
      async (ctx) => {
        await ctx.request('initialize', OFFICIAL_INITIALIZE);
        const before = await request<{ providers: Provider[] }>(ctx, 'providers/list', {});
        await request(ctx, 'providers/set', {
          providerId: 'main',
          apiType: 'openai',
          baseUrl: 'https://gateway.example.com/v1',
          headers: { Authorization: 'Bearer interop-secret' },
        });
        await request(ctx, 'providers/disable', { providerId: 'embeddings' });
        const after = await request<{ providers: Provider[] }>(ctx, 'providers/list', {});
        const required = await request(ctx, 'providers/disable', { providerId: 'main' }).then(
          () => undefined,
          (error: unknown) => error as { code?: number; data?: { pointer?: string } },
        );
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/status' }] });
        for (
          let waited = 0;
          !agent.wire.some((m) => JSON.stringify(m.params ?? '').includes('model requests to'));
          waited += 20
        ) {
          if (waited > 60_000) throw new Error(`no /status reply\n${agent.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return { before, after, required };
      },
    );

    const advertised = agent.wire.find(
      (m) => (m.result as { protocolVersion?: unknown })?.protocolVersion === 2,
    )?.result as { capabilities?: { providers?: unknown } };
    expect(advertised.capabilities?.providers).toEqual({});
    expect(outcome.before.providers.map((p) => [p.providerId, p.current?.apiType ?? null])).toEqual([
      ['main', 'anthropic'],
      ['embeddings', null],
    ]);
    expect(outcome.after.providers.map((p) => [p.providerId, p.current ?? null])).toEqual([
      ['main', { apiType: 'openai', baseUrl: 'https://gateway.example.com/v1' }],
      ['embeddings', null],
    ]);
    expect(outcome.required).toMatchObject({ code: -32602, data: { pointer: '/params/providerId' } });
    const status = agent.wire.find((m) => JSON.stringify(m.params ?? '').includes('model requests to'));
    expect(JSON.stringify(status)).toContain('model requests to openai at https://gateway.example.com/v1');
    // The secret went in once and never came back out.
    const out = agent.wire.map((m) => JSON.stringify(m)).join('\n');
    expect(out).not.toContain('interop-secret');
    expect(agent.stderr()).not.toContain('interop-secret');
    expect(errors.mock.calls).toEqual([]);
  });
});
