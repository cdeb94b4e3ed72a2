/**
 * The official SDK's v2 client (`@agentclientprotocol/sdk/experimental/v2`) driving an agent built
 * with our `Agent`, running as a child process (test/agent/fixtures/v2-agent.ts), through every v2
 * method beyond the prompt lifecycle: auth/login, session/new with config options,
 * session/set_config_option, tool calls, terminals, plans, usage, notices, titles, commands,
 * elicitation, session/list, session/close, session/resume with replay and session/delete. Every
 * message must pass the official SDK's own parsing, which reports failures on console.error.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  client as officialClient,
  ndJsonStream,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';

const fixture = fileURLToPath(new URL('../agent/fixtures/v2-agent.ts', import.meta.url));

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error');
});
afterEach(() => {
  errors.mockRestore();
});

describe('the official v2 client driving our Agent in a child process', () => {
  it('logs in, configures, prompts through every update kind, answers an elicitation, lists, closes, resumes and deletes', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, '--delete', '--auth'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const updates: UpdateSessionNotification[] = [];
    const asked: unknown[] = [];
    const app = officialClient({ name: 'official-interop' })
      .onNotification('session/update', ({ params }) => {
        updates.push(params);
      })
      .onRequest('elicitation/create', ({ params }) => {
        asked.push(params);
        return { action: 'accept', content: { name: 'Grace' } };
      });
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const idleCount = (sessionId: string) =>
      updates.filter(
        (n) =>
          n.sessionId === sessionId &&
          n.update.sessionUpdate === 'state_update' &&
          (n.update as { stopReason?: unknown }).stopReason !== undefined,
      ).length;
    try {
      await app.connectWith(stream, async (ctx) => {
        const init = await ctx.request('initialize', {
          protocolVersion: 2,
          info: { name: 'official', version: '2.4.0' },
          capabilities: { elicitation: { form: {} } },
        });
        expect(init.authMethods).toEqual([{ type: 'agent', methodId: 'token', name: 'Token' }]);
        expect(init.capabilities?.session?.delete).toEqual({});
        await ctx.request('auth/login', { methodId: 'token', _meta: { password: 'open sesame' } });

        const created = await ctx.request('session/new', { cwd: '/repo', mcpServers: [] });
        const { sessionId } = created;
        expect(created.configOptions?.map((o) => o.configId)).toEqual(['mode', 'verbose']);
        const set = await ctx.request('session/set_config_option', {
          type: 'id',
          sessionId,
          configId: 'mode',
          value: 'code',
        });
        expect(set.configOptions[0]).toMatchObject({ configId: 'mode', currentValue: 'code' });

        await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'tool' }] });
        await vi.waitFor(() => expect(idleCount(sessionId)).toBe(1), { timeout: 60_000 });
        await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask' }] });
        await vi.waitFor(() => expect(idleCount(sessionId)).toBe(2), { timeout: 60_000 });
        expect(asked).toEqual([expect.objectContaining({ mode: 'form', sessionId })]);
        const kinds = new Set(updates.map((n) => n.update.sessionUpdate));
        for (const kind of [
          'config_option_update',
          'tool_call_update',
          'tool_call_content_chunk',
          'terminal_update',
          'terminal_output_chunk',
          'plan_update',
          'usage_update',
          'notice',
          'session_info_update',
          'available_commands_update',
        ]) {
          expect(kinds, kind).toContain(kind);
        }

        const listed = await ctx.request('session/list', {});
        expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, title: 'Ran the tests' })]);
        await expect(
          ctx.request('tool_call/cancel', { sessionId, toolCallId: 'call_nope' }),
        ).rejects.toMatchObject({ code: -32002 });
        await ctx.request('session/close', { sessionId });

        const before = updates.length;
        const resumed = await ctx.request('session/resume', {
          sessionId,
          cwd: '/repo',
          replayFrom: { type: 'start' },
        });
        expect(resumed.configOptions?.[0]).toMatchObject({ currentValue: 'code' });
        const replayed = updates.slice(before).map((n) => n.update.sessionUpdate);
        expect(replayed).toContain('tool_call_content_chunk');
        expect(replayed).toContain('terminal_output_chunk');
        expect(replayed).toContain('plan_update');

        await ctx.request('session/delete', { sessionId });
        expect((await ctx.request('session/list', {})).sessions).toEqual([]);
      });
    } finally {
      child.kill();
    }
    expect(errors.mock.calls).toEqual([]);
  }, 180_000);
});
