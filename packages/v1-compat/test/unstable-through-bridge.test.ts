/**
 * v1's unstable surface through the v1 agent bridge (#29 item 5): an agent written with the official
 * SDK's v1 unstable entry (`@agentclientprotocol/sdk/unstable`, a child process over stdio) advertises
 * session titles, status, archive, system prompts, auth status, providers and MCP over ACP; our v2
 * client, opted in to the unstable surface, is offered each and uses each through the bridge. Its
 * updates (file and Markdown plans, plan removals, subagents, session messages) reach the client's
 * store with their IDs, the prompt response's usage reaches the turn's end, and what the bridge
 * cannot carry (proxy chains) or cannot read (a v1 answer or update that breaks the schema) gets a
 * clear error and an `onLoss` report. An official v1 agent that advertises none of it is refused
 * -32601 by the bridge itself. The children the v1 agent announces are guarded as an acp-kit agent
 * guards its own (nothing a client may not do to a child reaches the v1 agent), and let go with
 * their parent.
 */
import type { AuthStatusUpdateNotification } from '@acp-kit/schema';
import { Client, Connection, ErrorCodes, RpcError, spawnTransport, type UnstableClient } from '@acp-kit/sdk';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport as McpTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type BridgeLoss, V1AgentBridge } from '../src/index.js';
import { bridgeArgs, clientOf, spawnFixture, textOf, type UpdateLog, v1Rig } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Rig {
  client: UnstableClient;
  log: UpdateLog;
  bridge: V1AgentBridge;
  losses: BridgeLoss[];
  authUpdates: AuthStatusUpdateNotification[];
}

/** The official-SDK v1 unstable agent behind a bridge, and our unstable v2 client in front. */
function unstableRig(env: Record<string, string> = {}): Rig {
  const agent = spawnFixture('official-v1-unstable-agent.ts', env);
  const losses: BridgeLoss[] = [];
  const bridge = new V1AgentBridge({ agent, onLoss: (loss) => losses.push(loss) });
  const authUpdates: AuthStatusUpdateNotification[] = [];
  const { client, log } = clientOf(bridge, {
    unstable: true,
    onAuthStatus: (update) => authUpdates.push(update),
  });
  cleanup.push(async () => {
    client.close();
    bridge.close();
    await agent.shutdown({ graceMs: 500 });
  });
  return { client, log, bridge, losses, authUpdates };
}

/** The last agent message's text in a session. */
function lastAnswer(client: Client, sessionId: string): string {
  const agent = client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'agent_message');
  return textOf(agent.at(-1)?.content);
}

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('v1 unstable methods through the v1 agent bridge', () => {
  it('offers each unstable capability the v1 agent advertises, and nothing it does not', async () => {
    const { client } = unstableRig();
    const init = await client.initialize();
    expect(init.capabilities?.session).toMatchObject({
      fork: {},
      title: {},
      status: {},
      archive: {},
      systemPrompt: { mode: { override: {} } },
      mcp: { acp: {} },
    });
    expect(init.capabilities?.auth?.status).toEqual({});
    expect(init.capabilities?.providers).toEqual({});

    // The official v1 agent without any unstable capability: the bridge refuses each -32601.
    const stable = v1Rig({}, { unstable: true });
    cleanup.push(stable.close);
    const plain = await stable.client.initialize();
    expect(plain.capabilities?.session?.title).toBeUndefined();
    expect(plain.capabilities?.providers).toBeUndefined();
    const sessionId = await stable.client.newSession('/repo');
    for (const call of [
      stable.client.setTitle(sessionId, 'x'),
      stable.client.sessionStatus(sessionId),
      stable.client.archiveSession(sessionId),
      stable.client.authStatus(),
      stable.client.listProviders(),
    ]) {
      const error = await rejection(call);
      expect(error.code).toBe(ErrorCodes.MethodNotFound);
      expect(error.message).toMatch(/does not advertise/);
    }
  });

  it('sets titles, reports status, archives (closing the session) and unarchives, and lists by the archived filter', async () => {
    const { client } = unstableRig();
    await client.initialize();
    const first = await client.newSession('/repo/a');
    const second = await client.newSession('/repo/b');

    // The v1 agent trims the title: the client gets the stored one, also as a session_info_update.
    expect(await client.setTitle(first, '  Fix the build  ')).toBe('Fix the build');
    await expect.poll(() => client.store.snapshot(first).sessionInfo?.title).toBe('Fix the build');

    // v1 answers open or saved only: no state in the v2 answer.
    expect(await client.sessionStatus(first)).toEqual({ status: 'open' });
    const unknown = await rejection(client.sessionStatus('no-such-session'));
    expect(unknown.code).toBe(ErrorCodes.ResourceNotFound);

    await client.archiveSession(second);
    const ids = async (archived?: 'include' | 'only') =>
      (await client.listSessions(archived === undefined ? {} : { archived })).sessions.map((s) => [
        s.sessionId,
        s.title ?? null,
        s.archived ?? null,
      ]);
    expect(await ids()).toEqual([[first, 'Fix the build', false]]);
    expect(await ids('only')).toEqual([[second, null, true]]);
    expect(await ids('include')).toEqual([
      [first, 'Fix the build', false],
      [second, null, true],
    ]);
    await client.unarchiveSession(second);
    expect(await ids()).toEqual([
      [first, 'Fix the build', false],
      [second, null, false],
    ]);
    // Archiving closed the session, as in both versions: a client resumes it to go on.
    const closed = await rejection(client.promptToEnd(second, [{ type: 'text', text: 'still there?' }]));
    expect(closed.code).toBe(ErrorCodes.ResourceNotFound);
    await client.resume(second, { cwd: '/repo/b', replay: true });
    await client.promptToEnd(second, [{ type: 'text', text: 'back again' }]);
    expect(lastAnswer(client, second)).toBe('echo: back again');
  });

  it('carries auth/status and the v1 agent’s auth/status_update notification', async () => {
    const { client, authUpdates } = unstableRig();
    await client.initialize();
    expect(await client.authStatus()).toEqual({ state: 'unauthenticated' });
    const sessionId = await client.newSession('/repo');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/auth' }]);
    expect(authUpdates).toEqual([
      { state: 'authenticated', accounts: [{ label: 'Work', active: true, email: 'dev@example.com' }] },
    ]);
    expect(await client.authStatus()).toEqual({ state: 'authenticated' });
  });

  it('lists, sets and disables providers; the v1 agent’s refusal reaches the client', async () => {
    const { client } = unstableRig();
    await client.initialize();
    const listed = await client.listProviders();
    expect(listed.map((p) => [p.providerId, p.required, p.current ?? null])).toEqual([
      ['main', true, { apiType: 'anthropic', baseUrl: 'https://llm.example/main' }],
      ['spare', false, null],
    ]);
    await client.setProvider({
      providerId: 'spare',
      apiType: 'openai',
      baseUrl: 'https://llm.example/spare',
      headers: { authorization: 'Bearer secret' },
    });
    expect((await client.listProviders())[1]?.current).toEqual({
      apiType: 'openai',
      baseUrl: 'https://llm.example/spare',
    });
    await client.disableProvider('spare');
    expect((await client.listProviders())[1]?.current ?? null).toBeNull();
    const required = await rejection(client.disableProvider('main'));
    expect(required.code).toBe(ErrorCodes.InvalidParams);
  });

  it('gives the v1 agent the system prompt of session/new, resume and fork, and tells it the client takes plans and subagents', async () => {
    const { client } = unstableRig();
    await client.initialize();
    const { sessionId } = await client.createSession({
      cwd: '/repo',
      mcpServers: [],
      systemPrompt: { mode: 'override', content: [{ type: 'text', text: 'Answer in French.' }] },
    });
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/system' }]);
    expect(lastAnswer(client, sessionId)).toBe('override: Answer in French.');

    // A resume with replay (a v1 session/load) and a fork carry a new one.
    const append = { mode: 'append' as const, content: [{ type: 'text' as const, text: 'Be brief.' }] };
    await client.resume(sessionId, { cwd: '/repo', replay: true, systemPrompt: append });
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/system' }]);
    expect(lastAnswer(client, sessionId)).toBe('append: Be brief.');
    const fork = await client.forkSession({
      sessionId,
      cwd: '/repo',
      systemPrompt: { mode: 'append', content: [{ type: 'text', text: 'Fork rules.' }] },
    });
    await client.promptToEnd(fork.sessionId, [{ type: 'text', text: '/system' }]);
    expect(lastAnswer(client, fork.sessionId)).toBe('append: Fork rules.');

    await client.promptToEnd(sessionId, [{ type: 'text', text: '/caps' }]);
    expect(JSON.parse(lastAnswer(client, sessionId))).toMatchObject({ plan: {}, subagents: {} });
  });

  it('gives the system prompt of a resume without replay to the v1 agent’s session/resume', async () => {
    // This v1 agent resumes (sessionCapabilities.resume) and cannot load; it holds v1u-saved from
    // before the bridge started, so the bridge resumes it on the v1 agent.
    const { client } = unstableRig({ V1U_RESUME: '1' });
    await client.initialize();
    await client.resume('v1u-saved', {
      cwd: '/repo',
      systemPrompt: { mode: 'append', content: [{ type: 'text', text: 'Resumed rules.' }] },
    });
    await client.promptToEnd('v1u-saved', [{ type: 'text', text: '/system' }]);
    expect(lastAnswer(client, 'v1u-saved')).toBe('append: Resumed rules.');
    await client.promptToEnd('v1u-saved', [{ type: 'text', text: '/received' }]);
    expect(JSON.parse(lastAnswer(client, 'v1u-saved'))).toEqual([
      'session/prompt v1u-saved',
      'session/prompt v1u-saved',
    ]);
  });

  it('refuses a system prompt the v1 agent cannot take -32602 at its pointer, sending nothing', async () => {
    const { client } = unstableRig();
    await client.initialize();
    const empty = await rejection(
      client.createSession({ cwd: '/repo', mcpServers: [], systemPrompt: { mode: 'append', content: [] } }),
    );
    expect(empty.code).toBe(ErrorCodes.InvalidParams);
    expect(empty.data).toMatchObject({ pointer: '/params/systemPrompt/content' });

    // The official v1 agent without sessionCapabilities.systemPrompt.
    const stable = v1Rig({}, { unstable: true });
    cleanup.push(stable.close);
    await stable.client.initialize();
    const refused = await rejection(
      stable.client.createSession({
        cwd: '/repo',
        mcpServers: [],
        systemPrompt: { mode: 'append', content: [{ type: 'text', text: 'Be brief.' }] },
      }),
    );
    expect(refused.code).toBe(ErrorCodes.InvalidParams);
    expect(refused.data).toMatchObject({ pointer: '/params/systemPrompt' });
    expect((await stable.client.listSessions()).sessions).toEqual([]);
  });
});

describe('v1 unstable updates through the v1 agent bridge', () => {
  it('brings plans, plan removals, subagents and session messages to the store under their IDs', async () => {
    const { client, log, losses } = unstableRig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');

    await client.promptToEnd(sessionId, [{ type: 'text', text: '/plan' }]);
    const plans = client.store.snapshot(sessionId).plans;
    // p-1 (items) was removed; p-2 (Markdown) stays whole.
    expect(plans.map((p) => [p.planId, p.update.plan])).toEqual([
      ['p-2', { type: 'markdown', planId: 'p-2', content: '# Plan\n\n1. ship it' }],
    ]);

    await client.promptToEnd(sessionId, [{ type: 'text', text: '/subagent' }]);
    const snapshot = client.store.snapshot(sessionId);
    const child = `${sessionId}-child`;
    expect(snapshot.subagents.map((s) => [s.sessionId, s.fields])).toEqual([
      [
        child,
        {
          title: 'Research',
          description: 'looks things up',
          state: {
            state: 'idle',
            stopReason: 'end_turn',
            usage: { totalTokens: 30, inputTokens: 20, outputTokens: 10 },
          },
        },
      ],
    ]);
    const message = snapshot.messages.find((m) => m.messageId === 'sm-1');
    expect(message?.kind).toBe('session_message');
    expect(textOf(message?.content)).toBe('found it');
    expect(message?.fields).toEqual({ senderSessionId: child, recipientSessionId: sessionId });
    // The child's own updates follow the parent's client with no resume, after the announcement.
    expect(
      client.store.snapshot(child).messages.map((m) => [m.kind, m.messageId, textOf(m.content)]),
    ).toEqual([['agent_message', 'c-1', 'child working']]);
    const announced = log.notifications.findIndex((n) => n.update.sessionUpdate === 'subagent_update');
    const childTraffic = log.notifications.findIndex((n) => n.sessionId === child);
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(childTraffic).toBeGreaterThan(announced);
    expect(snapshot.otherUpdates).toEqual([]);
    expect(losses).toEqual([]);
  });

  it('ends the turn with the v1 prompt response’s usage', async () => {
    const { client } = unstableRig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: '/usage' }]);
    expect(end.usage).toEqual({ totalTokens: 120, inputTokens: 100, outputTokens: 20 });
    expect(client.store.snapshot(sessionId).state.usage).toEqual(end.usage);
  });

  it('keeps the unstable kinds as unknown updates for a v2 client that did not opt in', async () => {
    const agent = spawnFixture('official-v1-unstable-agent.ts');
    const bridge = new V1AgentBridge({ agent });
    const { client } = clientOf(bridge);
    cleanup.push(async () => {
      client.close();
      bridge.close();
      await agent.shutdown({ graceMs: 500 });
    });
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: '/subagent' }]);
    expect(end.stopReason).toBe('end_turn');
    const snapshot = client.store.snapshot(sessionId);
    expect(snapshot.subagents).toEqual([]);
    expect(snapshot.otherUpdates.map((u) => u.sessionUpdate).sort()).toEqual([
      'session_message',
      'session_message_chunk',
      'subagent_update',
    ]);
    expect(lastAnswer(client, sessionId)).toBe('delegated');
  });
});

describe('subagents of a v1 agent through the bridge', () => {
  /** What the v1 agent received naming `sessionId` (its `/received` record, asked on `via`). */
  async function receivedFor(client: Client, via: string, sessionId: string): Promise<string[]> {
    await client.promptToEnd(via, [{ type: 'text', text: '/received' }]);
    const received = JSON.parse(lastAnswer(client, via)) as string[];
    return received.filter((line) => line.endsWith(` ${sessionId}`));
  }

  it('refuses a client’s prompt, title, configuration and archive of a child -32602 naming the parent, sending none to the v1 agent', async () => {
    const { client, losses } = unstableRig();
    await client.initialize();
    const parent = await client.newSession('/repo');
    await client.promptToEnd(parent, [{ type: 'text', text: '/subagent' }]);
    const child = `${parent}-child`;
    expect(client.store.snapshot(parent).subagents.map((s) => s.sessionId)).toEqual([child]);

    for (const [method, call] of [
      ['session/prompt', client.prompt(child, [{ type: 'text', text: 'do more' }])],
      ['session/set_title', client.setTitle(child, 'Mine now')],
      ['session/set_config_option', client.setConfigOption(child, 'model', 'fast')],
      ['session/archive', client.archiveSession(child)],
    ] as const) {
      const error = await rejection(call);
      expect(error.code, method).toBe(ErrorCodes.InvalidParams);
      expect(error.message).toBe(
        `${method} is not permitted on session ${child}: it is a subagent of ${parent}, whose announcement grants the client no such change`,
      );
      expect(error.data).toEqual({ sessionId: child, parentSessionId: parent, method });
    }
    // Its announcement lists no capabilities: a cancel of it is dropped and reported.
    await client.cancel(child);
    // Read-only methods keep their rules.
    expect(await client.sessionStatus(child)).toEqual({ status: 'open' });

    expect(await receivedFor(client, parent, child)).toEqual([]);
    expect(losses).toEqual([
      {
        sessionId: child,
        in: 'session/cancel',
        pointer: '/params/sessionId',
        reason: `session/cancel is not permitted on session ${child}: it is a subagent of ${parent}, whose announcement does not make it cancellable`,
      },
    ]);
    // The parent itself is an ordinary session.
    expect(await client.setTitle(parent, 'Parent')).toBe('Parent');
  });

  it('forwards a cancel of a child to the v1 agent only while its latest announcement has capabilities.cancel', async () => {
    const { client, losses } = unstableRig();
    await client.initialize();
    const parent = await client.newSession('/repo');
    await client.promptToEnd(parent, [{ type: 'text', text: '/subagent-cancellable' }]);
    const child = `${parent}-child`;
    await client.cancel(child);
    expect(await receivedFor(client, parent, child)).toEqual([`session/cancel ${child}`]);
    // Cancelling is all it permits.
    expect((await rejection(client.prompt(child, [{ type: 'text', text: 'x' }]))).code).toBe(
      ErrorCodes.InvalidParams,
    );

    // capabilities: null takes the permission away.
    await client.promptToEnd(parent, [{ type: 'text', text: '/subagent-revoke' }]);
    await client.cancel(child);
    expect(await receivedFor(client, parent, child)).toEqual([`session/cancel ${child}`]);
    expect(losses.map((l) => [l.sessionId, l.in])).toEqual([[child, 'session/cancel']]);
  });

  it('stops following a parent’s children once the parent is archived', async () => {
    const { client, log } = unstableRig();
    await client.initialize();
    const parent = await client.newSession('/repo');
    await client.promptToEnd(parent, [{ type: 'text', text: '/subagent' }]);
    const child = `${parent}-child`;

    // The v1 agent sends an update of the child right after answering the archive; the status
    // answer that follows it on the wire shows it has reached the bridge, and a followed child's
    // update would reach the client within moments (it took a few milliseconds when the bridge
    // still followed archived parents' children; 300 ms is plenty).
    await client.archiveSession(parent);
    await client.sessionStatus(parent);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(log.notifications.filter((n) => n.sessionId === child).map((n) => n.update.sessionUpdate)).toEqual(
      ['agent_message_chunk'],
    );
    expect(log.notifications.some((n) => JSON.stringify(n.update).includes('c-late'))).toBe(false);
    // The bridge no longer holds the child.
    const gone = await rejection(client.prompt(child, [{ type: 'text', text: 'x' }]));
    expect(gone.code).toBe(ErrorCodes.ResourceNotFound);
  });
});

describe('the bridge’s own updates, in order', () => {
  it('sends the session_info_update of set_title after the updates the v1 agent sent before its answer', async () => {
    const { client, log } = unstableRig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    expect(await client.setTitle(sessionId, '!chatty Chatty title')).toBe('Chatty title');
    await expect.poll(() => client.store.snapshot(sessionId).sessionInfo?.title).toBe('Chatty title');
    const order = log.notifications
      .filter((n) => n.sessionId === sessionId)
      .map((n) =>
        n.update.sessionUpdate === 'session_info_update'
          ? 'title'
          : textOf([(n.update as { content?: unknown }).content]),
      )
      .filter((entry) => entry !== '');
    expect(order).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'title']);
  });
});

describe('MCP over ACP through the v1 agent bridge', () => {
  it('lets the v1 agent list and call a tool of an MCP SDK server the v2 client hosts', async () => {
    const agent = spawnFixture('official-v1-unstable-agent.ts');
    // What the bridge writes to the v1 agent, in order: mcp/message notifications and MCP outcomes.
    const toAgent: string[] = [];
    const write = agent.writer.write.bind(agent.writer);
    agent.writer.write = (json, note) => {
      const message = JSON.parse(json) as { id?: unknown; method?: string; params?: { method?: string } };
      const result = (message as { result?: unknown }).result;
      if (message.method === 'mcp/message') toAgent.push(`notification ${message.params?.method}`);
      else if (typeof result === 'object' && result !== null && 'result' in result)
        toAgent.push(`outcome ${message.id}`);
      return write(json, note);
    };
    const bridge = new V1AgentBridge({ agent });
    const { client } = clientOf(bridge, { unstable: true });
    cleanup.push(async () => {
      client.close();
      bridge.close();
      await agent.shutdown({ graceMs: 500 });
    });
    await client.initialize();
    const calls: string[] = [];
    const server = new Server({ name: 'echo-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: 'shout',
          description: 'Upper-cases a text',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      calls.push(`${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}`);
      // Goes to the agent as an mcp/message notification for this request, through the bridge.
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: 'shout', progress: 1, total: 1 },
      });
      const text = String((request.params.arguments as { text?: unknown } | undefined)?.text ?? '');
      return { content: [{ type: 'text', text: text.toUpperCase() }] };
    });
    const transport = client.hostMcpServer({ name: 'echo-tools' });
    await server.connect(transport as unknown as McpTransport);
    cleanup.push(() => transport.close());
    const sessionId = await client.newSession('/repo', [transport.registration.declaration]);

    const end = await client.promptToEnd(sessionId, [
      { type: 'text', text: `/mcp ${transport.registration.serverId}` },
    ]);
    expect(end.error).toBeNull();
    expect(lastAnswer(client, sessionId)).toBe(
      'tools: shout; shout: PING; notes: notifications/progress@call-1',
    );
    expect(calls).toEqual(['shout {"text":"ping"}']);
    // The server's notification reached the agent before the outcome of the request it belongs to.
    expect(toAgent.map((line) => line.replace(/\d+$/, 'N'))).toEqual([
      'outcome N',
      'notification notifications/progress',
      'outcome N',
    ]);
  });

  it('refuses an acp server -32602 when the v1 agent does not take them, or when another client has its serverId', async () => {
    const { client, bridge } = unstableRig();
    await client.initialize();
    const declaration = { type: 'acp' as const, name: 'tools', serverId: 'shared-id' };
    await client.newSession('/repo', [declaration]);
    const { client: other } = clientOf(bridge, { unstable: true });
    cleanup.push(async () => other.close());
    await other.initialize();
    const taken = await rejection(other.newSession('/repo', [declaration]));
    expect(taken.code).toBe(ErrorCodes.InvalidParams);
    expect(taken.data).toMatchObject({ pointer: '/params/mcpServers/0/serverId' });
    // The same client may declare its own server again (a session of its own).
    await client.newSession('/repo', [declaration]);

    const stable = v1Rig({}, { unstable: true });
    cleanup.push(stable.close);
    await stable.client.initialize();
    const unsupported = await rejection(stable.client.newSession('/repo', [declaration]));
    expect(unsupported.code).toBe(ErrorCodes.InvalidParams);
    expect(unsupported.data).toMatchObject({ pointer: '/params/mcpServers/0/type' });
  });

  it('answers the v1 agent -33001 for an MCP server no v2 client declared, and reports it', async () => {
    const { client, losses } = unstableRig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/mcp nobody' }]);
    expect(lastAnswer(client, sessionId)).toBe(
      'mcp refused: -33001 No MCP server "nobody" was declared through the bridge',
    );
    expect(losses).toEqual([
      {
        sessionId: '',
        in: 'mcp/message',
        pointer: '/params/serverId',
        reason: 'no v2 client declared the MCP server "nobody"',
      },
    ]);
  });
});

describe('what the v1 agent bridge cannot carry or read', () => {
  it('refuses proxy/initialize and proxy/successor from a v2 conductor -32601, drops the notification form, and reports each', async () => {
    const { client, losses } = unstableRig();
    // Before initialize too: a conductor sends proxy/initialize instead of initialize.
    const proxied = await rejection(
      client.connection.sendRequest('proxy/initialize', {
        protocolVersion: 2,
        info: { name: 'conductor', version: '1' },
        capabilities: {},
      } as never),
    );
    expect(proxied.code).toBe(ErrorCodes.MethodNotFound);
    expect(proxied.message).toMatch(
      /^proxy\/initialize from the v2 client is not carried: the v1 bridge does not carry proxy chains/,
    );
    await client.initialize();
    const successor = await rejection(
      client.connection.sendRequest('proxy/successor', {
        method: 'session/new',
        params: { cwd: '/' },
      } as never),
    );
    expect(successor.code).toBe(ErrorCodes.MethodNotFound);
    await client.connection.sendNotification('proxy/successor', {
      method: 'session/cancel',
      params: { sessionId: 'any' },
    } as never);
    await expect.poll(() => losses.length).toBe(3);
    expect(losses.map((l) => [l.in, l.sessionId, l.reason])).toEqual([
      ['proxy/initialize', '', 'the v1 bridge does not carry proxy chains'],
      ['proxy/successor', '', 'the v1 bridge does not carry proxy chains'],
      ['proxy/successor', '', 'the v1 bridge does not carry proxy chains (notification dropped)'],
    ]);
  });

  it('answers the v1 agent’s proxy/successor -32601 and reports it', async () => {
    const { client, losses } = unstableRig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/successor' }]);
    expect(lastAnswer(client, sessionId)).toMatch(
      /^successor refused: -32601 proxy\/successor from the v1 agent is not carried/,
    );
    expect(losses.map((l) => l.in)).toEqual(['proxy/successor']);
  });

  it('fails set_title with a clear error when the v1 agent answers an invalid result', async () => {
    const { client } = unstableRig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const error = await rejection(client.setTitle(sessionId, '!bad-result'));
    expect(error.code).toBe(ErrorCodes.InternalError);
    expect(error.message).toMatch(/^Invalid result for session\/set_title at \/result\/title: expected /);
    // The bridge and the session go on.
    expect(await client.setTitle(sessionId, 'fine')).toBe('fine');
  });

  it('drops a malformed subagent_update, reports it, and the turn goes on', async () => {
    const { client, losses } = unstableRig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: '/bad-subagent' }]);
    expect(end.stopReason).toBe('end_turn');
    expect(lastAnswer(client, sessionId)).toBe('after the bad update');
    expect(client.store.snapshot(sessionId).subagents).toEqual([]);
    expect(losses).toHaveLength(1);
    expect(losses[0]).toMatchObject({ sessionId, in: 'session/update' });
    expect(losses[0]?.pointer).toMatch(/^\/params\/update/);
    expect(losses[0]?.reason).toMatch(
      /^the notification breaks v1's schema and was dropped \(session\/update: Invalid params at \/params\/update/,
    );
  });
});

describe('v1 unstable surface through the bridge process (acp-kit bridge --serve v2)', () => {
  it('serves titles and subagents, and logs a refused proxy/initialize on stderr', async () => {
    let stderr = '';
    const transport = spawnTransport(process.execPath, bridgeArgs('v2', 'official-v1-unstable-agent.ts'), {
      name: 'bridge',
      onStderr: (text) => {
        stderr += text;
      },
    });
    const client = new Client(new Connection(transport), {
      info: { name: 'test-client', version: '1' },
      unstable: true,
    });
    cleanup.push(async () => {
      client.close();
      await transport.shutdown({ graceMs: 1000 });
    });
    const init = await client.initialize();
    expect(init.capabilities?.session?.title).toEqual({});
    const sessionId = await client.newSession('/repo');
    expect(await client.setTitle(sessionId, ' Over the pipe ')).toBe('Over the pipe');
    await client.promptToEnd(sessionId, [{ type: 'text', text: '/subagent' }]);
    expect(client.store.snapshot(sessionId).subagents.map((sub) => sub.sessionId)).toEqual([
      `${sessionId}-child`,
    ]);

    const refused = await rejection(
      client.connection.sendRequest('proxy/initialize', {
        protocolVersion: 2,
        info: { name: 'conductor', version: '1' },
        capabilities: {},
      } as never),
    );
    expect(refused.code).toBe(ErrorCodes.MethodNotFound);
    await expect
      .poll(() => stderr)
      .toContain(
        'acp-kit bridge: left out proxy/initialize (the call) on the connection: the v1 bridge does not carry proxy chains\n',
      );
  });
});
