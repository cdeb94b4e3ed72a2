/**
 * #29, the v1 bridge's unstable surface over a real process: the official SDK's v1 *unstable*
 * client (`@agentclientprotocol/sdk/unstable`) talks to `acp-kit agent` over stdio with
 * `protocolVersion: 1`, so every message crosses the in-process v1 codec. It sets a title, asks
 * for status, archives and unarchives, follows auth status (and `auth/status_update`), lists, sets
 * and disables providers, starts a session with a system prompt, runs `/plan`, `/unplan`, `/run`
 * and `/subagent` (live, and replayed by `session/load` after a restart on SQLite), and hosts MCP
 * servers over ACP (the official v1 `McpOverAcpProvider`, and an official MCP SDK server behind
 * it). Advertising v1's unstable `plan` and `subagents` client capabilities decides whether
 * `plan_update`/`plan_removed`, `subagent_update`, `session_message(_chunk)` and the child's own
 * traffic are sent; what is held back is reported on the agent's stderr (the codec's onLoss).
 * Every line the agent writes is checked against our v1 schema and, for notifications and
 * answers, against the official v1 unstable zod schemas.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type NewSessionRequest,
  McpOverAcpProvider,
  McpProtocolError,
  methods,
  client as officialV1Client,
} from '@agentclientprotocol/sdk/unstable';
import { converters, v1Validation } from '@acp-kit/v1-compat';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { replyTo } from '../../src/agent/reply-model.js';
import { requireBuild } from '../harness.js';
import {
  type AgentProcess,
  OFFICIAL_INITIALIZE,
  spawnAgentProcess,
  type WireMessage,
} from './agent-process.js';

beforeAll(requireBuild);
const running: AgentProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const agent of running.splice(0)) await agent.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function spawn(args: readonly string[]): AgentProcess {
  const agent = spawnAgentProcess(0, args);
  running.push(agent);
  return agent;
}

type Zod = { safeParse(value: unknown): { success: boolean; error?: unknown } };

/** The official v1 unstable zod schemas (not exported: loaded from the module its v1 entry uses). */
async function officialV1Zod(): Promise<Record<string, Zod>> {
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/unstable');
  return import(pathToFileURL(join(dirname(entry), 'schema', 'zod.gen.js')).href);
}

type Update = { sessionUpdate: string; [key: string]: unknown };
type Notification = { sessionId: string; update: Update };

const notifications = (wire: readonly WireMessage[]): Notification[] =>
  wire.filter((m) => m.method === 'session/update').map((m) => m.params as Notification);

/** Every request and notification the agent wrote is valid v1, and every notification parses officially. */
function expectAllV1(wire: readonly WireMessage[], zod: Record<string, Zod>): void {
  for (const message of wire) {
    if (message.method === undefined) continue;
    const checked = v1Validation.validateParams(message.method, message.params);
    expect(checked, `${message.method} is a v1 method`).toBeDefined();
    expect(checked?.ok ? [] : checked?.issues, JSON.stringify(message)).toEqual([]);
  }
  const rejected = notifications(wire).filter((n) => !zod.zSessionNotification!.safeParse(n).success);
  expect(rejected).toEqual([]);
}

/** The answer an official zod schema must accept, returned as it came. */
function parsed<T>(zod: Record<string, Zod>, name: string, value: T): T {
  const outcome = zod[name]!.safeParse(value);
  expect(outcome.success, `${name}: ${JSON.stringify(value)} ${JSON.stringify(outcome.error)}`).toBe(true);
  return value;
}

async function until(agent: AgentProcess, test: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !test(); waited += 20) {
    if (waited > 60_000) throw new Error(`timed out waiting for ${what}\n${agent.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

/** The text of the agent's message chunks in a session. */
const replies = (wire: readonly WireMessage[], sessionId: string): string =>
  notifications(wire)
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => (n.update.content as { text?: string }).text ?? '')
    .join('');

const failure = (error: unknown) => error as { code?: number; message?: string; data?: unknown };

describe('the official v1 unstable client driving acp-kit agent --unstable', () => {
  it('sets a title, asks status, archives and unarchives, reads auth status and providers, and gets plans, subagents, usage and its system prompt applied (plan and subagents advertised)', async () => {
    const zod = await officialV1Zod();
    const errors = vi.spyOn(console, 'error');
    const agent = spawn(['--unstable']);
    const answer = replyTo('hello there');
    const live = await officialV1Client({ name: 'official-v1-unstable' }).connectWith(
      agent.stream,
      async (ctx) => {
        const init = await ctx.request('initialize', {
          protocolVersion: 1,
          clientCapabilities: { plan: {}, subagents: {} },
        });
        const request: NewSessionRequest = {
          cwd: '/tmp',
          mcpServers: [],
          systemPrompt: { mode: 'override', content: text('Review only.') },
        };
        const created = await ctx.request('session/new', request);
        const { sessionId } = created;
        const titled = parsed(
          zod,
          'zSetSessionTitleResponse',
          await ctx.request('session/set_title', { sessionId, title: 'Release notes' }),
        );
        const listed = parsed(zod, 'zListSessionsResponse', await ctx.request('session/list', {}));
        const status = parsed(
          zod,
          'zSessionStatusResponse',
          await ctx.request('session/status', { sessionId }),
        );
        parsed(zod, 'zArchiveSessionResponse', await ctx.request('session/archive', { sessionId }));
        const hidden = await ctx.request('session/list', {});
        const archived = parsed(
          zod,
          'zListSessionsResponse',
          await ctx.request('session/list', { archived: 'only' }),
        );
        parsed(zod, 'zUnarchiveSessionResponse', await ctx.request('session/unarchive', { sessionId }));
        const back = await ctx.request('session/list', {});
        const auth = parsed(zod, 'zAuthStatusResponse', await ctx.request('auth/status', {}));
        const providers = parsed(zod, 'zListProvidersResponse', await ctx.request('providers/list', {}));

        const prompt = async (words: string) =>
          parsed(
            zod,
            'zPromptResponse',
            await ctx.request('session/prompt', { sessionId, prompt: text(words) }),
          );
        await prompt('/status');
        const hello = await prompt('hello there');
        await prompt('/run ls');
        await prompt('/plan # Ship it');
        await prompt('/unplan');
        await prompt('/subagent review the diff');
        await until(
          agent,
          () => replies(agent.wire, sessionId).includes('finished.'),
          'the subagent to finish',
        );

        await ctx.request('session/close', { sessionId });
        const saved = await ctx.request('session/status', { sessionId });
        const unknown = await ctx
          .request('session/status', { sessionId: 'sess_nobody' })
          .then(() => undefined, failure);
        return {
          init,
          sessionId,
          titled,
          listed,
          status,
          hidden,
          archived,
          back,
          auth,
          providers,
          hello,
          saved,
          unknown,
        };
      },
    );

    // Initialize: exactly what the v2 agent serves, in v1 form, unstable capabilities included.
    const caps = live.init.agentCapabilities!;
    expect(caps.sessionCapabilities).toMatchObject({
      title: {},
      status: {},
      archive: {},
      fork: {},
      systemPrompt: { mode: { override: {} } },
    });
    expect(caps.mcpCapabilities).toMatchObject({ acp: true });
    expect(caps.providers).toEqual({});
    expect(caps.auth).toMatchObject({ status: {} });

    expect(live.titled).toEqual({ title: 'Release notes' });
    expect(live.listed.sessions).toEqual([
      expect.objectContaining({ sessionId: live.sessionId, title: 'Release notes', archived: false }),
    ]);
    // v1's session/status knows only open and saved: the v2 activity is left out, and reported.
    expect(live.status).toEqual({ status: 'open' });
    expect(agent.stderr()).toContain(`left out session/status /result/state for session ${live.sessionId}`);
    expect(live.hidden.sessions).toEqual([]);
    expect(live.archived.sessions).toEqual([
      expect.objectContaining({ sessionId: live.sessionId, archived: true }),
    ]);
    expect(live.back.sessions).toEqual([
      expect.objectContaining({ sessionId: live.sessionId, archived: false }),
    ]);
    expect(live.auth).toEqual({ state: 'not_required' });
    expect(live.providers.providers.map((p) => p.providerId)).toEqual(['main', 'embeddings']);
    expect(live.providers.providers[0]).toMatchObject({ required: true, current: { apiType: 'anthropic' } });
    // The system prompt reached the agent: /status reports it.
    expect(replies(agent.wire, live.sessionId)).toContain('system prompt: override, 12 character(s)');
    // The idle that ended the turn carried usage: the v1 PromptResponse has it.
    expect(live.hello).toEqual({
      stopReason: 'end_turn',
      usage: {
        totalTokens: answer.inputTokens + answer.pieces.length,
        inputTokens: answer.inputTokens,
        outputTokens: answer.pieces.length,
      },
    });
    expect(live.saved).toEqual({ status: 'saved' });
    expect(live.unknown).toMatchObject({ code: -32002, data: { sessionId: 'sess_nobody' } });

    const wire = notifications(agent.wire);
    const own = wire.filter((n) => n.sessionId === live.sessionId).map((n) => n.update);
    const plans = own.filter((u) => u.sessionUpdate === 'plan_update' || u.sessionUpdate === 'plan');
    expect(plans.every((u) => u.sessionUpdate === 'plan_update')).toBe(true);
    expect(plans.at(-1)).toMatchObject({
      sessionUpdate: 'plan_update',
      plan: { type: 'markdown', planId: 'plan_notes', content: '# Ship it' },
    });
    expect(own.filter((u) => u.sessionUpdate === 'plan_removed')).toEqual([
      expect.objectContaining({ planId: 'plan_run' }),
    ]);
    // The subagent: announced on the parent first, then its own traffic under its own ID.
    const announcedAt = wire.findIndex((n) => n.update.sessionUpdate === 'subagent_update');
    expect(announcedAt).toBeGreaterThanOrEqual(0);
    const childId = wire[announcedAt]!.update.sessionId as string;
    expect(wire[announcedAt]).toMatchObject({
      sessionId: live.sessionId,
      update: { title: 'Subagent: review the diff' },
    });
    const childAt = wire.findIndex((n) => n.sessionId === childId);
    expect(childAt).toBeGreaterThan(announcedAt);
    const childKinds = wire.filter((n) => n.sessionId === childId).map((n) => n.update.sessionUpdate);
    expect(childKinds).toEqual([
      'session_message',
      'session_message_chunk',
      'session_message',
      'agent_message_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
    ]);
    expect(own.some((u) => u.sessionUpdate === 'session_message')).toBe(true);
    expectAllV1(agent.wire, zod);
    expect(agent.stderr()).not.toMatch(/did not advertise (plan|subagents)|is a subagent of/);
    expect(errors.mock.calls).toEqual([]);
  });

  it('sends the stable plan and none of the plan, subagent or session-message kinds to a v1 client that advertised neither, and reports what it held back', async () => {
    const zod = await officialV1Zod();
    const errors = vi.spyOn(console, 'error');
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-v1-unstable-'));
    dirs.push(dir);
    const db = join(dir, 'history.db');
    const agent = spawn(['--unstable', '--history', db]);
    const sessionId = await officialV1Client({ name: 'official-v1-stable-kinds' }).connectWith(
      agent.stream,
      async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const session = await ctx.buildSession('/tmp').start();
        for (const words of ['/run ls', '/plan # Ship it', '/unplan', '/subagent review the diff'])
          await session.prompt(words);
        await until(
          agent,
          () => replies(agent.wire, session.sessionId).includes('finished.'),
          'the subagent to finish',
        );
        session.dispose();
        return session.sessionId;
      },
    );

    const wire = notifications(agent.wire);
    const kinds = wire.map((n) => n.update.sessionUpdate);
    for (const unstable of [
      'plan_update',
      'plan_removed',
      'subagent_update',
      'session_message',
      'session_message_chunk',
    ])
      expect(kinds).not.toContain(unstable);
    // Only its own session: the child it was never told about sends it nothing.
    expect(new Set(wire.map((n) => n.sessionId))).toEqual(new Set([sessionId]));
    const plans = wire.filter((n) => n.update.sessionUpdate === 'plan').map((n) => n.update);
    expect(plans.length).toBeGreaterThan(1);
    // The Markdown plan as v1's stable plan: one entry holding the Markdown.
    expect(JSON.stringify(plans.at(-1))).toContain('# Ship it');
    expect(replies(agent.wire, sessionId)).toContain('Subagent');
    const stderr = agent.stderr();
    expect(stderr).toContain('left out plan_removed (whole update)');
    expect(stderr).toContain('the v1 client did not advertise plan in its initialize');
    expect(stderr).toContain('left out subagent_update (whole update)');
    expect(stderr).toMatch(
      /left out agent_message_chunk \(whole update\) for session \S+: \S+ is a subagent of/,
    );
    expectAllV1(agent.wire, zod);
    await agent.stop();

    // After a restart on the same file, session/load replays the parent: the child's history
    // follows only for a client that advertised subagents (the codec learns the child from the
    // replayed subagent_update).
    const load = async (clientCapabilities: Record<string, unknown>) => {
      const again = spawn(['--unstable', '--history', db]);
      await officialV1Client({ name: 'official-v1-load-subagent' }).connectWith(again.stream, async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities });
        await ctx.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
      });
      expectAllV1(again.wire, zod);
      await again.stop();
      return notifications(again.wire);
    };
    const plain = await load({});
    expect(new Set(plain.map((n) => n.sessionId))).toEqual(new Set([sessionId]));
    expect(plain.map((n) => n.update.sessionUpdate)).not.toContain('subagent_update');
    const aware = await load({ subagents: {} });
    const announced = aware.findIndex((n) => n.update.sessionUpdate === 'subagent_update');
    expect(announced).toBeGreaterThanOrEqual(0);
    const childId = aware[announced]!.update.sessionId as string;
    const childAt = aware.findIndex((n) => n.sessionId === childId);
    expect(childAt).toBeGreaterThan(announced);
    expect(aware.filter((n) => n.sessionId === childId).map((n) => n.update.sessionUpdate)).toContain(
      'agent_message_chunk',
    );
    expect(errors.mock.calls).toEqual([]);
  });

  it('is offered exactly the capabilities the agent serves: none of the unstable ones by the stable-only agent, whose unstable methods answer -32601', async () => {
    const zod = await officialV1Zod();
    for (const args of [[], ['--unstable']]) {
      const v2Agent = spawn(args);
      const v2 = await officialV1Client({ name: 'official-v2-init' }).connectWith(v2Agent.stream, (ctx) =>
        ctx.request<Parameters<typeof converters.v2ToV1InitializeResponse>[0]>(
          'initialize',
          OFFICIAL_INITIALIZE,
        ),
      );
      const v1Agent = spawn(args);
      const v1 = await officialV1Client({ name: 'official-v1-init' }).connectWith(v1Agent.stream, (ctx) =>
        ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} }),
      );
      parsed(zod, 'zInitializeResponse', v1);
      // The v1 answer is the v2 one converted: nothing added, nothing the agent serves left out.
      expect(v1.agentCapabilities).toEqual(converters.v2ToV1InitializeResponse(v2).agentCapabilities);
    }

    const agent = spawn([]);
    const outcome = await officialV1Client({ name: 'official-v1-stable-only' }).connectWith(
      agent.stream,
      async (ctx) => {
        const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        const refused: Record<string, unknown> = {};
        const calls: [string, unknown][] = [
          ['session/set_title', { sessionId, title: 'x' }],
          ['session/status', { sessionId }],
          ['session/archive', { sessionId }],
          ['session/unarchive', { sessionId }],
          ['auth/status', {}],
          ['providers/list', {}],
        ];
        for (const [method, params] of calls)
          refused[method] = await ctx.request(method, params).then(() => 'answered', failure);
        return { init, refused };
      },
    );
    const caps = outcome.init.agentCapabilities!;
    for (const key of ['title', 'status', 'archive', 'systemPrompt', 'fork'])
      expect(caps.sessionCapabilities ?? {}).not.toHaveProperty(key);
    expect(caps).not.toHaveProperty('providers');
    expect(caps.auth?.status ?? null).toBeNull();
    expect(caps.mcpCapabilities?.acp ?? false).toBe(false);
    for (const [method, error] of Object.entries(outcome.refused))
      expect(error, method).toMatchObject({ code: -32601 });
  });

  it('refuses proxy/* with -32601 naming proxy chains and reports it, lets an extension cross, refuses a method that is not v1, and answers bad params with a pointer', async () => {
    const agent = spawn(['--unstable']);
    const outcome = await officialV1Client({ name: 'official-v1-refusals' }).connectWith(
      agent.stream,
      async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        const call = (method: string, params: unknown) =>
          ctx.request(method, params).then(() => 'answered', failure);
        return {
          proxyInit: await call('proxy/initialize', { protocolVersion: 1, clientCapabilities: {} }),
          proxySuccessor: await call('proxy/successor', { method: 'session/new', params: {} }),
          extension: await call('_vendor/ping', { sessionId }),
          v2Only: await call('tool_call/cancel', { sessionId, toolCallId: 'call_1' }),
          noTitle: await call('session/set_title', { sessionId }),
          badStatus: await call('session/status', { sessionId: 7 }),
          afterwards: await ctx.request('session/status', { sessionId }),
        };
      },
    );
    for (const refused of [outcome.proxyInit, outcome.proxySuccessor]) {
      expect(refused).toMatchObject({ code: -32601 });
      expect(failure(refused).message).toContain('does not carry proxy chains');
    }
    expect(agent.stderr()).toContain('left out proxy/initialize (the call) on the connection');
    expect(agent.stderr()).toContain('left out proxy/successor (the call) on the connection');
    // The extension crossed unchanged: the agent itself answered that it has no such method.
    expect(outcome.extension).toMatchObject({
      code: -32601,
      message: 'Method not found: _vendor/ping',
      data: { method: '_vendor/ping' },
    });
    expect(failure(outcome.extension).data).not.toHaveProperty('reason');
    // A v2-only method is not v1: the codec refuses it instead of handing it to the v2 agent.
    expect(outcome.v2Only).toMatchObject({
      code: -32601,
      data: { method: 'tool_call/cancel', reason: expect.stringContaining('is not a v1 method') },
    });
    expect(outcome.noTitle).toMatchObject({
      code: -32602,
      message: 'Invalid params at /params/title: expected required property title',
      data: { pointer: '/params/title' },
    });
    expect(outcome.badStatus).toMatchObject({ code: -32602, data: { pointer: '/params/sessionId' } });
    expect(outcome.afterwards).toEqual({ status: 'open' });
  });

  it('hosts an MCP server over ACP with the official v1 McpOverAcpProvider: /mcp lists its tool and calls it through mcp/message', async () => {
    const zod = await officialV1Zod();
    const errors = vi.spyOn(console, 'error');
    const agent = spawn(['--unstable']);
    const provider = new McpOverAcpProvider();
    const seen: string[] = [];
    const sessionId = await officialV1Client({ name: 'official-v1-mcp' })
      .onRequest(methods.client.mcp.message, provider.handleRequest)
      .connectWith(agent.stream, async (ctx) => {
        const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        expect(init.agentCapabilities?.mcpCapabilities?.acp).toBe(true);
        const server = provider.registerServer(ctx, {
          name: 'v1-tools',
          serverId: 'v1-tools-1',
          handler: async ({ method, params, protocolVersion }) => {
            seen.push(`${method} ${protocolVersion}`);
            if (method === 'tools/list')
              return { result: { tools: [{ name: 'shout', inputSchema: { type: 'object' } }] } };
            if (method === 'tools/call' && params?.name === 'shout') {
              const words = String((params.arguments as { text?: unknown })?.text ?? '');
              return { result: { content: [{ type: 'text', text: words.toUpperCase() }] } };
            }
            throw new McpProtocolError(-32602, `Unknown tool: ${String(params?.name)}`);
          },
        });
        const session = await ctx.buildSession({ cwd: '/tmp', mcpServers: [server.declaration] }).start();
        await session.prompt('/mcp');
        await session.prompt('/mcp shout {"text": "quiet words"}');
        await session.prompt('/mcp @v1-tools-1 whisper {}');
        session.dispose();
        return session.sessionId;
      });

    expect(seen).toEqual([
      'tools/list 2026-07-28',
      'tools/list 2026-07-28',
      'tools/call 2026-07-28',
      'tools/call 2026-07-28',
    ]);
    const requests = agent.wire.filter((m) => m.method === 'mcp/message');
    expect(requests).toHaveLength(4);
    expect(requests[0]).toMatchObject({ params: { serverId: 'v1-tools-1', method: 'tools/list' } });
    expect(replies(agent.wire, sessionId)).toContain('v1-tools: shout');
    const settled = notifications(agent.wire)
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress');
    expect(settled.map((u) => [u.status, JSON.stringify(u.content)])).toEqual([
      ['completed', expect.stringContaining('QUIET WORDS')],
      ['failed', expect.stringContaining('Unknown tool: whisper')],
    ]);
    expectAllV1(agent.wire, zod);
    expect(errors.mock.calls).toEqual([]);
  });

  it("hosts an MCP server built with the official MCP SDK: its tool is listed and called end to end, and the server's progress is sent back for the call", async () => {
    const zod = await officialV1Zod();
    const errors = vi.spyOn(console, 'error');
    const agent = spawn(['--unstable']);
    // The MCP server (official MCP SDK), reached by an MCP SDK client in the v1 application.
    const calls: string[] = [];
    const server = new McpServer(
      { name: 'project-tools', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: 'word_count',
          description: 'Counts the words of a text',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      calls.push(`${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}`);
      if (request.params.name !== 'word_count')
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const progressToken = request.params._meta?.progressToken;
      if (progressToken !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: 1, total: 1 },
        });
      const words = String((request.params.arguments as { text?: unknown } | undefined)?.text ?? '');
      return { content: [{ type: 'text', text: `${words.split(/\s+/).filter(Boolean).length} word(s)` }] };
    });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = new McpClient({ name: 'v1-editor', version: '1.0.0' });
    await mcp.connect(clientSide);
    const progress: unknown[] = [];

    const provider = new McpOverAcpProvider();
    const sessionId = await officialV1Client({ name: 'official-v1-mcp-sdk' })
      .onRequest(methods.client.mcp.message, provider.handleRequest)
      .connectWith(agent.stream, async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const registered = provider.registerServer(ctx, {
          name: 'project-tools',
          serverId: 'project-tools-1',
          // Each mcp/message the agent sends goes to the MCP SDK server; its progress goes back.
          handler: async ({ method, params, notify }) => {
            try {
              const result = await mcp.request({ method, params } as never, ResultSchema, {
                onprogress: (update) => {
                  progress.push(update);
                  void notify('notifications/progress', { ...update });
                },
              });
              return { result };
            } catch (error) {
              if (error instanceof McpError) throw new McpProtocolError(error.code, error.message);
              throw error;
            }
          },
        });
        const session = await ctx.buildSession({ cwd: '/tmp', mcpServers: [registered.declaration] }).start();
        await session.prompt('/mcp');
        await session.prompt('/mcp word_count {"text": "one two three"}');
        session.dispose();
        return session.sessionId;
      });
    await mcp.close();

    expect(replies(agent.wire, sessionId)).toContain(
      'MCP tools over ACP:\nproject-tools: word_count (Counts the words of a text)',
    );
    expect(calls).toEqual(['word_count {"text":"one two three"}']);
    expect(progress).toEqual([{ progress: 1, total: 1 }]);
    const settled = notifications(agent.wire)
      .map((n) => n.update)
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(JSON.stringify(settled)).toContain('3 word(s)');
    const asked = agent.wire.filter((m) => m.method === 'mcp/message');
    expect(asked.map((m) => (m.params as { method: string }).method)).toEqual([
      'tools/list',
      'tools/list',
      'tools/call',
    ]);
    expectAllV1(agent.wire, zod);
    expect(agent.stderr()).toBe('');
    expect(errors.mock.calls).toEqual([]);
  });

  it('follows the login with auth/status and auth/status_update, and re-routes model requests with providers/set and providers/disable', async () => {
    const zod = await officialV1Zod();
    const errors = vi.spyOn(console, 'error');
    const agent = spawn(['--unstable', '--require-login']);
    const updates: unknown[] = [];
    const outcome = await officialV1Client({ name: 'official-v1-auth-providers' })
      .onNotification('auth/status_update', ({ params }) => {
        updates.push(params);
      })
      .connectWith(agent.stream, async (ctx) => {
        const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const before = parsed(zod, 'zAuthStatusResponse', await ctx.request('auth/status', {}));
        await ctx.request('authenticate', { methodId: 'reference' });
        const after = await ctx.request('auth/status', {});
        await ctx.request('providers/set', {
          providerId: 'main',
          apiType: 'openai',
          baseUrl: 'https://llm-gateway.example.com/v1',
        });
        await ctx.request('providers/set', {
          providerId: 'embeddings',
          apiType: 'openai',
          baseUrl: 'https://embeddings.example.com/v1',
        });
        const routed = parsed(zod, 'zListProvidersResponse', await ctx.request('providers/list', {}));
        await ctx.request('providers/disable', { providerId: 'embeddings' });
        const disabled = await ctx.request('providers/list', {});
        const session = await ctx.buildSession('/tmp').start();
        await session.prompt('/status');
        session.dispose();
        await ctx.request('logout', {});
        const final = await ctx.request('auth/status', {});
        return { init, before, after, routed, disabled, final, sessionId: session.sessionId };
      });

    expect(outcome.init.agentCapabilities?.auth).toEqual({ status: {}, logout: {} });
    expect(outcome.before).toEqual({ state: 'unauthenticated' });
    expect(outcome.after).toEqual({ state: 'authenticated' });
    expect(outcome.final).toEqual({ state: 'unauthenticated' });
    expect(updates).toEqual([{ state: 'authenticated' }, { state: 'unauthenticated' }]);
    for (const update of updates)
      expect(zod.zAuthStatusUpdateNotification!.safeParse(update).success).toBe(true);
    expect(outcome.routed.providers.map((p) => [p.providerId, p.current?.baseUrl ?? null])).toEqual([
      ['main', 'https://llm-gateway.example.com/v1'],
      ['embeddings', 'https://embeddings.example.com/v1'],
    ]);
    expect(outcome.disabled.providers.find((p) => p.providerId === 'embeddings')?.current).toBeNull();
    expect(replies(agent.wire, outcome.sessionId)).toContain(
      'model requests to openai at https://llm-gateway.example.com/v1',
    );
    expectAllV1(agent.wire, zod);
    expect(errors.mock.calls).toEqual([]);
  });
});
