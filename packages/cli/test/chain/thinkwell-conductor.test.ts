/**
 * #29, proxy chains with a conductor nobody here wrote: `@thinkwell/conductor` 0.5.7 from npm
 * (see thinkwell-conductor.mjs) runs two `acp-kit proxy` processes in front of `acp-kit agent`.
 * It speaks the sacp dialect (initialize with `_meta.proxy`, `_proxy/successor/request` and
 * `_proxy/successor/notification`), which acp-kit's proxy recognizes from its first message. Our
 * Client and the official SDK's v2 client complete the v2 lifecycle through it, a permission
 * request included, and nothing is left running when the client goes.
 */
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client as officialClient, ndJsonStream } from '@agentclientprotocol/sdk/experimental/v2';
import { spawnTransport } from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientOver, requireBuild, tempDir } from '../harness.js';
import { OFFICIAL_INITIALIZE } from '../interop/agent-process.js';
import { cliLine, noneLeft, processesMarked, proxyLine } from './chain-process.js';

const DRIVER = fileURLToPath(new URL('./thinkwell-conductor.mjs', import.meta.url));
const CONTEXT = 'Project rules: tabs, not spaces.';

beforeAll(requireBuild);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** thinkwell's conductor with the context proxy, the tap and the reference agent, marked with `dir`. */
function thinkwellChain(dir: string) {
  let stderr = '';
  const conductor = spawnTransport(
    process.execPath,
    [
      DRIVER,
      proxyLine('--name', 'context', '--context', CONTEXT, '--log', join(dir, 'context.ndjson')),
      proxyLine('--name', 'tap', '--log', join(dir, 'tap.ndjson')),
      cliLine('agent', '--chunk-delay', '1', '--history', join(dir, 'history.db')),
    ],
    {
      name: '@thinkwell/conductor',
      onStderr: (text) => {
        stderr += text;
      },
    },
  );
  cleanups.push(async () => void (await conductor.shutdown({ graceMs: 500 })));
  return Object.assign(conductor, { stderr: () => stderr });
}

describe('@thinkwell/conductor running two acp-kit proxies in front of acp-kit agent', () => {
  it('our Client initializes, prompts and answers a permission request through it', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const conductor = thinkwellChain(dir);
    const asked: string[] = [];
    const t = await clientOver(conductor, {
      onPermission: (request) => {
        asked.push(request.title ?? '');
        return { outcome: { outcome: 'selected', optionId: 'allow' } };
      },
    });
    const init = t.incoming.find((m) => m.id !== undefined && m.result !== undefined)?.result as {
      protocolVersion: number;
      _meta?: Record<string, unknown>;
    };
    expect(init.protocolVersion).toBe(2);
    // Both proxies, in order; thinkwell's conductor requires the sacp marker on the first one's answer.
    expect(init._meta).toMatchObject({ 'acp-kit.dev/proxies': ['context', 'tap'], proxy: true });

    const sessionId = await t.client.newSession(dir);
    const end = await t.client.promptToEnd(sessionId, [{ type: 'text', text: 'Hello through thinkwell' }]);
    expect(end.stopReason).toBe('end_turn');
    const userMessage = t.updates().find((u) => u.sessionUpdate === 'user_message') as
      | { content: unknown[] }
      | undefined;
    expect(userMessage?.content).toEqual([
      { type: 'text', text: 'Hello through thinkwell' },
      { type: 'text', text: CONTEXT },
    ]);
    const write = await t.client.promptToEnd(sessionId, [{ type: 'text', text: '/write notes.md' }]);
    expect(write.stopReason).toBe('end_turn');
    expect(asked).toEqual([`Allow: /write notes.md\n${CONTEXT}`]);

    expect(processesMarked(dir).length).toBeGreaterThanOrEqual(4);
    t.connection.close();
    expect(await conductor.exited).toEqual({ code: 0, signal: null });
    await noneLeft(dir);
  });

  it("the official SDK's v2 client completes initialize, session/new and a prompt through it", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const conductor = thinkwellChain(dir);
    const updates: { sessionUpdate: string; state?: string; content?: unknown }[] = [];
    const stream = ndJsonStream(
      Writable.toWeb(conductor.child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(conductor.child.stdout!) as ReadableStream<Uint8Array>,
    );
    const outcome = await officialClient({ name: 'official-through-thinkwell' })
      .onNotification('session/update', ({ params }) => {
        updates.push(params.update as (typeof updates)[number]);
      })
      .connectWith(stream, async (ctx) => {
        const init = await ctx.request('initialize', OFFICIAL_INITIALIZE);
        const { sessionId } = await ctx.request('session/new', { cwd: dir, mcpServers: [] });
        const receipt = await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'Hello, official client' }],
        });
        for (
          let waited = 0;
          !updates.some((u) => u.sessionUpdate === 'state_update' && u.state === 'idle');
          waited += 20
        ) {
          if (waited > 30_000) throw new Error(`no idle through thinkwell\n${conductor.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return { init, receipt };
      });
    expect(outcome.init.protocolVersion).toBe(2);
    expect(typeof (outcome.receipt as { messageId?: unknown }).messageId).toBe('string');
    expect(updates.find((u) => u.sessionUpdate === 'user_message')?.content).toEqual([
      { type: 'text', text: 'Hello, official client' },
      { type: 'text', text: CONTEXT },
    ]);
    conductor.child.stdin!.end();
    expect(await conductor.exited).toEqual({ code: 0, signal: null });
    await noneLeft(dir);
  });
});
