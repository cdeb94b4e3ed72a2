/**
 * #29, proxy chains: `acp-kit chain` runs two `acp-kit proxy` processes in front of the reference
 * agent, each a child process over stdio. Our Client and the official SDK's v2 client complete the
 * v2 lifecycle through it — initialize (both proxies list themselves, in order), session/new, a
 * prompt whose user message shows the context block the first proxy added, a permission request
 * that travels up through both proxies as wrapped proxy/successor requests — and when the client
 * goes, nothing of the chain is left running.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, client as officialClient } from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientOver, requireBuild, tempDir, textOf } from '../harness.js';
import { OFFICIAL_INITIALIZE } from '../interop/agent-process.js';
import { noneLeft, processesMarked, proxyLine, REFERENCE_AGENT, spawnChain } from './chain-process.js';

beforeAll(requireBuild);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const CONTEXT = 'Project rules: tabs, not spaces.';

/** Two proxies (context first, then a tap logging to `log`) in front of the reference agent. */
function twoProxyChain(dir: string, log: string) {
  const chain = spawnChain(
    [
      proxyLine('--name', 'context', '--context', CONTEXT, '--log', join(dir, 'context.ndjson')),
      proxyLine('--name', 'tap', '--log', log),
    ],
    [...REFERENCE_AGENT, '--history', join(dir, 'history.db')],
  );
  cleanups.push(async () => void (await chain.shutdown({ graceMs: 500 })));
  return chain;
}

type Logged = { direction: string; kind: string; method: string; params: unknown };
const readLog = (file: string): Logged[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Logged);

describe('a chain of two acp-kit proxies in front of acp-kit agent', () => {
  it('our Client initializes, prompts, answers a permission request and sees the context proxy at work', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const log = join(dir, 'tap.ndjson');
    const chain = twoProxyChain(dir, log);
    const asked: string[] = [];
    const t = await clientOver(chain, {
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
    expect(init._meta?.['acp-kit.dev/proxies']).toEqual(['context', 'tap']);

    const sessionId = await t.client.newSession(dir);
    const end = await t.client.promptToEnd(sessionId, [{ type: 'text', text: 'Hello through the chain' }]);
    expect(end.stopReason).toBe('end_turn');
    const userMessage = t.updates().find((u) => u.sessionUpdate === 'user_message') as
      | { content: unknown[] }
      | undefined;
    expect(userMessage?.content).toEqual([
      { type: 'text', text: 'Hello through the chain' },
      { type: 'text', text: CONTEXT },
    ]);

    const write = await t.client.promptToEnd(sessionId, [{ type: 'text', text: '/write notes.md' }]);
    expect(write.stopReason).toBe('end_turn');
    expect(asked).toEqual(['Allow: /write notes.md\nProject rules: tabs, not spaces.']);

    // The tap sits after the context proxy: it saw the prompt with the context block already
    // added, the permission request going up, and the updates going up.
    const seen = readLog(log);
    const prompts = seen.filter((e) => e.direction === 'toAgent' && e.method === 'session/prompt');
    expect(prompts.map((e) => textOf((e.params as { prompt: unknown[] }).prompt))).toEqual([
      `Hello through the chain${CONTEXT}`,
      `/write notes.md${CONTEXT}`,
    ]);
    expect(
      seen.filter((e) => e.direction === 'toClient' && e.method === 'session/request_permission'),
    ).toHaveLength(1);
    expect(seen.some((e) => e.direction === 'toClient' && e.method === 'session/update')).toBe(true);
    expect(seen[0]).toMatchObject({ direction: 'toAgent', kind: 'request', method: 'initialize' });

    // The chain, both proxies and the agent are running (each command line names the temp folder).
    expect(processesMarked(dir).length).toBeGreaterThanOrEqual(4);
    t.connection.close();
    const exit = await chain.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    await noneLeft(dir);
  });

  it("the official SDK's v2 client completes initialize, session/new and a prompt through the chain", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const chain = twoProxyChain(dir, join(dir, 'tap.ndjson'));
    const updates: { sessionUpdate: string; state?: string; content?: unknown }[] = [];
    const stream = ndJsonStream(
      Writable.toWeb(chain.child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(chain.child.stdout!) as ReadableStream<Uint8Array>,
    );
    const outcome = await officialClient({ name: 'official-through-chain' })
      .onNotification('session/update', ({ params }) => {
        updates.push(params.update as (typeof updates)[number]);
      })
      .connectWith(stream, async (ctx) => {
        const init = (await ctx.request('initialize', OFFICIAL_INITIALIZE)) as {
          _meta?: Record<string, unknown>;
        };
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
          if (waited > 30_000) throw new Error(`no idle through the chain\n${chain.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return { init, receipt };
      });
    expect(outcome.init._meta?.['acp-kit.dev/proxies']).toEqual(['context', 'tap']);
    expect(typeof (outcome.receipt as { messageId?: unknown }).messageId).toBe('string');
    const userMessage = updates.find((u) => u.sessionUpdate === 'user_message');
    expect(userMessage?.content).toEqual([
      { type: 'text', text: 'Hello, official client' },
      { type: 'text', text: CONTEXT },
    ]);
    chain.child.stdin!.end();
    expect(await chain.exited).toEqual({ code: 0, signal: null });
    await noneLeft(dir);
  });
});
