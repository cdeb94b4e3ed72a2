/**
 * #29, `session/archive` and `session/unarchive`: the official SDK's experimental v2 client
 * archives a session of the real `acp-kit agent` process over stdio, with its history in a real
 * SQLite file; the agent is stopped and started again on that file, and the session is still
 * archived there. The official client parses every answer with its own zod schemas (a failure shows
 * on console.error).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client as officialClient } from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, OFFICIAL_INITIALIZE, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Listed = { sessions: { sessionId: string; archived?: boolean }[] };

/**
 * Runs `steps` with the official client against a fresh `acp-kit agent --history <file>` process;
 * also resolves with the `session/list` answers as the agent wrote them (the official client's
 * parsed copies drop the unstable `archived` field its stable schemas do not know).
 */
async function withAgent<T>(
  file: string,
  steps: (ctx: { request: (method: string, params: unknown) => Promise<unknown> }) => Promise<T>,
): Promise<{ result: T; lists: Listed['sessions'][] }> {
  const agent: AgentProcess = spawnAgentProcess(0, ['--unstable', '--history', file]);
  cleanups.push(() => agent.stop());
  const result = await officialClient({ name: 'interop-official-archive' }).connectWith(
    agent.stream,
    async (ctx) => {
      await ctx.request('initialize', OFFICIAL_INITIALIZE);
      // Unstable methods and fields: the official client's request map has no types for them.
      return steps({
        request: (method, params) => ctx.request(method as never, params as never) as Promise<unknown>,
      });
    },
  );
  await agent.stop();
  const lists = agent.wire
    .map((m) => (m.result as Partial<Listed> | undefined)?.sessions)
    .filter((sessions): sessions is Listed['sessions'] => Array.isArray(sessions));
  return { result, lists };
}

describe('the official v2 client archiving a session of acp-kit agent --history <sqlite file>', () => {
  it('hides it from the default list, lists it with archived: only, keeps the mark across a restart, and unarchives it', async () => {
    const errors = vi.spyOn(console, 'error');
    const dir = mkdtempSync(join(tmpdir(), 'acp-archive-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'history.sqlite');

    const first = await withAgent(file, async ({ request }) => {
      const { sessionId: kept } = (await request('session/new', { cwd: '/tmp', mcpServers: [] })) as {
        sessionId: string;
      };
      const { sessionId: old } = (await request('session/new', { cwd: '/tmp', mcpServers: [] })) as {
        sessionId: string;
      };
      const archived = await request('session/archive', { sessionId: old });
      await request('session/list', {});
      await request('session/list', { archived: 'only' });
      return { kept, old, archived };
    });
    const { kept, old } = first.result;
    expect(first.result.archived).toEqual({});
    const pairs = (sessions: Listed['sessions']) => sessions.map((s) => [s.sessionId, s.archived]);
    expect(first.lists.map(pairs)).toEqual([[[kept, false]], [[old, true]]]);

    const second = await withAgent(file, async ({ request }) => {
      await request('session/list', { archived: 'include' });
      await request('session/unarchive', { sessionId: old });
      await request('session/list', {});
    });
    expect(second.lists.map(pairs)).toEqual([
      [
        [kept, false],
        [old, true],
      ],
      [
        [kept, false],
        [old, false],
      ],
    ]);
    expect(errors.mock.calls).toEqual([]);
  });
});
