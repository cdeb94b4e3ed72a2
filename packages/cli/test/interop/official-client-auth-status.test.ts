/**
 * #29, `auth/status` and `auth/status_update`: the official SDK's experimental v2 client asks the
 * real `acp-kit agent --require-login` process over stdio for its authentication state before and
 * after logging in. `auth/status` is answered before the login (never -32000, while session/new
 * is), the login is followed by one `auth/status_update`, and every answer and notification parses
 * with the official SDK's zod schemas of its unstable surface, besides the official client's own
 * parsing (a failure shows on console.error).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** The official SDK's zod schemas of its v2 unstable surface (shipped beside its stable ones). */
async function officialUnstable(): Promise<
  Record<string, { safeParse(value: unknown): { success: boolean } }>
> {
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/experimental/v2');
  return import(pathToFileURL(join(dirname(entry), '..', 'unstable', 'schema', 'zod.gen.js')).href);
}

describe('the official v2 client asking acp-kit agent --require-login for auth/status', () => {
  it('is answered unauthenticated before the login and authenticated after it, with one auth/status_update', async () => {
    const errors = vi.spyOn(console, 'error');
    const agent = spawnAgentProcess(0, ['--unstable', '--require-login']);
    running = agent;
    const outcome = await officialClient({ name: 'interop-official-auth-status' }).connectWith(
      agent.stream,
      async (ctx) => {
        await ctx.request('initialize', OFFICIAL_INITIALIZE);
        // Unstable: the official client's request map has no type for it.
        const status = () => ctx.request('auth/status' as never, {} as never) as Promise<unknown>;
        const before = await status();
        const refused = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] }).then(
          () => undefined,
          (error: unknown) => (error as { code?: number }).code,
        );
        await ctx.request('auth/login', { methodId: 'reference' });
        for (let waited = 0; !agent.wire.some((m) => m.method === 'auth/status_update'); waited += 20) {
          if (waited > 30_000) throw new Error(`no auth/status_update\n${agent.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const after = await status();
        return { before, refused, after };
      },
    );
    const initAnswer = agent.wire.find(
      (m) => (m.result as { protocolVersion?: unknown })?.protocolVersion === 2,
    );
    const advertised = initAnswer?.result as { capabilities?: { auth?: { status?: unknown } } } | undefined;
    expect(advertised?.capabilities?.auth?.status).toEqual({});
    expect(outcome.before).toEqual({ state: 'unauthenticated' });
    expect(outcome.refused).toBe(-32000);
    expect(outcome.after).toEqual({ state: 'authenticated' });
    const updates = agent.wire.filter((m) => m.method === 'auth/status_update').map((m) => m.params);
    expect(updates).toEqual([{ state: 'authenticated' }]);
    const zod = await officialUnstable();
    for (const answer of [outcome.before, outcome.after])
      expect(zod.zAuthStatusResponse!.safeParse(answer).success).toBe(true);
    for (const params of updates)
      expect(zod.zAuthStatusUpdateNotification!.safeParse(params).success).toBe(true);
    expect(errors.mock.calls).toEqual([]);
  });
});
