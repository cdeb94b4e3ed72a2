/**
 * #29, client system prompts: the official SDK's experimental v2 client creates a session of the
 * real `acp-kit agent` process (stdio, SQLite history) with an override `systemPrompt`, and `/status`
 * reports it; an unknown mode and a non-text block are refused with -32602 at their pointers; after
 * a restart on the same file a resume without one keeps the stored prompt, and a resume with an
 * append prompt replaces it. The official client parses every answer with its own zod schemas (a
 * failure shows on console.error).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client as officialClient } from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, OFFICIAL_INITIALIZE, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
const running: AgentProcess[] = [];
let dir = '';
afterEach(async () => {
  for (const agent of running.splice(0)) await agent.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** The text of the agent's replies in a session, in order. */
function replies(agent: AgentProcess, sessionId: string): string[] {
  return agent.wire
    .filter((m) => m.method === 'session/update')
    .map(
      (m) =>
        m.params as { sessionId: string; update: { sessionUpdate: string; content?: { text?: string } } },
    )
    .filter((p) => p.sessionId === sessionId && p.update.sessionUpdate === 'agent_message_chunk')
    .map((p) => p.update.content?.text ?? '');
}

async function until(agent: AgentProcess, test: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !test(); waited += 20) {
    if (waited > 60_000) throw new Error(`timed out waiting for ${what}\n${agent.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const status = { type: 'text' as const, text: '/status' };

describe('the official v2 client giving acp-kit agent a system prompt', () => {
  it('keeps an override prompt with the session across a restart, takes a replacement on resume, and refuses what it cannot apply', async () => {
    const errors = vi.spyOn(console, 'error');
    dir = mkdtempSync(join(tmpdir(), 'acp-kit-system-prompt-'));
    const db = join(dir, 'history.db');
    const first = spawnAgentProcess(0, ['--unstable', '--history', db]);
    running.push(first);
    const created = await officialClient({ name: 'interop-official-system-prompt' }).connectWith(
      first.stream,
      async (ctx) => {
        const init = (await ctx.request('initialize', OFFICIAL_INITIALIZE)) as {
          capabilities?: { session?: { systemPrompt?: unknown } };
        };
        const { sessionId } = await ctx.request('session/new', {
          cwd: '/tmp',
          mcpServers: [],
          systemPrompt: { mode: 'override', content: [{ type: 'text', text: 'Review only.' }] },
        } as never);
        await ctx.request('session/prompt', { sessionId, prompt: [status] });
        await until(first, () => replies(first, sessionId).length > 0, 'the /status reply');
        const refusal = (params: unknown) =>
          ctx.request('session/new', params as never).then(
            () => undefined,
            (error: unknown) => error as { code?: number; data?: { pointer?: string } },
          );
        const unknownMode = await refusal({
          cwd: '/tmp',
          mcpServers: [],
          systemPrompt: { mode: '_prepend', content: [{ type: 'text', text: 'x' }] },
        });
        const image = await refusal({
          cwd: '/tmp',
          mcpServers: [],
          systemPrompt: { mode: 'append', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
        });
        return { init, sessionId, unknownMode, image };
      },
    );
    const advertised = first.wire.find(
      (m) => (m.result as { protocolVersion?: unknown })?.protocolVersion === 2,
    )?.result as { capabilities?: { session?: { systemPrompt?: unknown } } };
    expect(advertised.capabilities?.session?.systemPrompt).toEqual({ mode: { override: {} } });
    expect(replies(first, created.sessionId).join('')).toContain('system prompt: override, 12 character(s)');
    expect(created.unknownMode).toMatchObject({
      code: -32602,
      data: { pointer: '/params/systemPrompt/mode' },
    });
    expect(created.image).toMatchObject({
      code: -32602,
      data: { pointer: '/params/systemPrompt/content/0/type' },
    });
    await first.stop();

    const second = spawnAgentProcess(0, ['--unstable', '--history', db]);
    running.push(second);
    await officialClient({ name: 'interop-official-system-prompt-2' }).connectWith(
      second.stream,
      async (ctx) => {
        await ctx.request('initialize', OFFICIAL_INITIALIZE);
        const { sessionId } = created;
        await ctx.request('session/resume', { sessionId, cwd: '/tmp' });
        await ctx.request('session/prompt', { sessionId, prompt: [status] });
        await until(
          second,
          () => replies(second, sessionId).length > 0,
          'the first /status reply after the restart',
        );
        await ctx.request('session/resume', {
          sessionId,
          cwd: '/tmp',
          systemPrompt: { mode: 'append', content: [{ type: 'text', text: 'Be brief.' }] },
        } as never);
        await ctx.request('session/prompt', { sessionId, prompt: [status] });
        await until(second, () => replies(second, sessionId).length > 1, 'the second /status reply');
      },
    );
    const [kept, replaced] = replies(second, created.sessionId);
    expect(kept).toContain('system prompt: override, 12 character(s)');
    expect(replaced).toContain('system prompt: append, 9 character(s)');
    expect(errors.mock.calls).toEqual([]);
  });
});
