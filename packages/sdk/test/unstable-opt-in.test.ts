/**
 * Upstream's unstable surface is opt-in on both sides (`unstable: true`): an Agent that did not
 * opt in cannot configure an unstable capability or send an unstable update kind, a Client that
 * did not opt in sends no unstable request — and its store still tolerates the unstable update
 * kinds as unknown ones (forward compatibility), exactly as a client that predates them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { METHOD_CAPABILITIES, METHODS, type SessionNotification, UPDATE_KINDS } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions } from '../src/agent/index.js';
import { Client, type ClientConnection } from '../src/client/client.js';
import { ConversationStore, type ConversationDiagnostic } from '../src/client/conversation/index.js';
import { AcpMcpServerTransport } from '../src/mcp-over-acp/mcp-transport.js';
import { Connection } from '../src/rpc/connection.js';
import { createInProcessPair } from '../src/transports/in-process.js';
import {
  UNSTABLE_AGENT_CAPABILITIES,
  UNSTABLE_METHODS,
  UNSTABLE_UPDATE_KINDS,
} from '../src/unstable-surface.js';
import { wire } from './agent/harness.js';

const base: AgentOptions = {
  info: { name: 'opt-in-agent', version: '0.0.0' },
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.running();
    const text = prompt.content.map((b) => (b as { text?: string }).text ?? '').join('');
    try {
      if (text === 'subagent') await session.subagent();
      if (text === 'unplan') await session.update({ sessionUpdate: 'plan_removed', planId: 'p' });
      if (text === 'markdown') await session.plan({ type: 'markdown', planId: 'p', content: '1. Ship' });
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: 'sent' });
    } catch (error) {
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: String(error) });
    }
    await session.idle('end_turn');
  },
};

/** The official stable v2 schema's methods and update kinds (what is not unstable). */
function officialStable(): { methods: Set<string>; kinds: Set<string> } {
  const require = createRequire(import.meta.url);
  const path = require.resolve('@agentclientprotocol/sdk/schema/v2/schema.json');
  const schema = JSON.parse(readFileSync(path, 'utf8')) as { $defs: Record<string, unknown> };
  const methods = new Set<string>();
  const kinds = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record['x-method'] === 'string') methods.add(record['x-method']);
    const tag = (record.properties as Record<string, { const?: unknown }> | undefined)?.sessionUpdate;
    if (typeof tag?.const === 'string') kinds.add(tag.const);
    for (const value of Object.values(record)) walk(value);
  };
  walk(schema.$defs);
  return { methods, kinds };
}

describe('the unstable surface is listed exactly', () => {
  const official = officialStable();

  it('lists every method of our schema that the official stable schema lacks, and no other', () => {
    const beyondStable = METHODS.map((m) => m.name).filter((name) => !official.methods.has(name));
    expect([...UNSTABLE_METHODS].sort()).toEqual(beyondStable.sort());
  });

  it('lists every update kind of our schema that the official stable schema lacks, and no other', () => {
    const beyondStable = UPDATE_KINDS.filter((kind) => !official.kinds.has(kind));
    expect([...UNSTABLE_UPDATE_KINDS].sort()).toEqual([...beyondStable].sort());
  });

  it("lists each unstable method's capability among the unstable capabilities", () => {
    const listed = new Set(UNSTABLE_AGENT_CAPABILITIES.map((path) => path.join('.')));
    for (const method of UNSTABLE_METHODS) {
      const capability = METHOD_CAPABILITIES[method as keyof typeof METHOD_CAPABILITIES].capability;
      if (capability === null || capability.in !== 'InitializeResponse') continue;
      expect(listed, method).toContain(capability.path.slice(1).join('.'));
    }
  });
});

describe('an Agent that did not opt in', () => {
  it('refuses to be configured with an unstable capability or providers, naming each', () => {
    expect(() => new Agent({ ...base, capabilities: { session: { fork: {}, delete: {} } } })).toThrow(
      /capabilities\.session\.fork is part of ACP's unstable surface.*unstable: true/,
    );
    expect(
      () => new Agent({ ...base, capabilities: { auth: { status: {} }, session: { title: {} } } }),
    ).toThrow(/capabilities\.session\.title, capabilities\.auth\.status/);
    expect(() => new Agent({ ...base, providers: [{ providerId: 'main', supported: ['openai'] }] })).toThrow(
      /the providers option/,
    );
    expect(() => new Agent({ ...base, capabilities: { session: { delete: {} } } })).not.toThrow();
  });

  it('cannot send an unstable update kind or a Markdown plan (a TypeError), and sends nothing of it', async () => {
    const { client } = wire(base);
    const sessionId = await client.newSession('/repo');
    for (const text of ['subagent', 'unplan', 'markdown']) {
      await (await client.submit(sessionId, [{ type: 'text', text }])).turnEnd;
    }
    const texts = client.store
      .snapshot(sessionId)
      .messages.filter((m) => m.kind === 'agent_message')
      .map((m) => (m.content[0] as { text: string }).text);
    expect(texts).toEqual([
      expect.stringMatching(/TypeError: AgentSession\.subagent\(\).*unstable: true/),
      expect.stringMatching(/TypeError: the plan_removed update is part of ACP's unstable surface/),
      expect.stringMatching(/TypeError: a plan of type markdown is part of ACP's unstable surface/),
    ]);
    const snapshot = client.store.snapshot(sessionId);
    expect(snapshot.plans).toEqual([]);
    expect(snapshot.subagents).toEqual([]);
    expect(snapshot.otherUpdates).toEqual([]);
  });

  it('with unstable: true sends them', async () => {
    const { client } = wire({ ...base, unstable: true });
    const sessionId = await client.newSession('/repo');
    await (await client.submit(sessionId, [{ type: 'text', text: 'subagent' }])).turnEnd;
    expect(client.store.snapshot(sessionId).subagents).toHaveLength(1);
  });
});

describe('a Client that did not opt in', () => {
  function stableClient(options: { onAuthStatus?: () => void } = {}) {
    const agent = new Agent({ ...base, unstable: true, capabilities: { session: { fork: {}, title: {} } } });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(new Connection(agentSide) as never);
    const connection = new Connection(clientSide) as ClientConnection;
    const sent: string[] = [];
    connection.onMessage((direction, message) => {
      const method = (message as { method?: string }).method;
      if (direction === 'out' && method !== undefined) sent.push(method);
    });
    const client = new Client(connection, { info: { name: 'stable-client', version: '0.0.0' }, ...options });
    return { client, sent };
  }

  it('rejects each unstable method with a TypeError and sends nothing', async () => {
    const { client, sent } = stableClient();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const calls: [string, () => Promise<unknown>][] = [
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['session/fork', () => client.forkSession({ sessionId, cwd: '/repo' })],
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['session/set_title', () => client.setTitle(sessionId, 'T')],
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['session/status', () => client.sessionStatus(sessionId)],
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['session/archive', () => client.archiveSession(sessionId)],
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['session/unarchive', () => client.unarchiveSession(sessionId)],
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['auth/status', () => client.authStatus()],
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['providers/list', () => client.listProviders()],
      [
        'providers/set',
        // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
        () => client.setProvider({ providerId: 'm', apiType: 'openai', baseUrl: 'https://x', headers: {} }),
      ],
      // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
      ['providers/disable', () => client.disableProvider('m')],
      [
        'systemPrompt on session/new',
        () =>
          client.createSession({
            cwd: '/repo',
            mcpServers: [],
            systemPrompt: { mode: 'append', content: [{ type: 'text', text: 'x' }] },
          }),
      ],
    ];
    for (const [what, call] of calls) {
      await expect(call(), what).rejects.toThrow(new RegExp(`${what}.*unstable: true`));
    }
    expect(sent).toEqual(['initialize', 'session/new']);
    expect(() => stableClient({ onAuthStatus: () => undefined })).toThrow(/onAuthStatus/);
  });

  it('refuses every way of hosting an MCP server over ACP with a TypeError naming the opt-in, registering nothing', async () => {
    const { client, sent } = stableClient();
    await client.initialize();
    const handler = () => ({ result: {} });
    expect(() => client.mcp.register({ name: 'words', handler })).toThrow(
      /^client\.mcp\.register\(\) \(MCP over ACP\) is part of ACP's unstable surface.*create the Client with `unstable: true`/,
    );
    expect(() => client.mcp.register({ name: 'words', handler })).toThrow(TypeError);
    // @ts-expect-error a stable client has no unstable methods: the call fails to compile too
    expect(() => client.hostMcpServer({ name: 'words' })).toThrow(
      /^hostMcpServer\(\) \(MCP over ACP\) is part of ACP's unstable surface.*`unstable: true`/,
    );
    // The transport for an MCP SDK server, made on the client's host directly.
    expect(() => new AcpMcpServerTransport(client.mcp, { name: 'words' })).toThrow(
      /client\.mcp\.register\(\).*`unstable: true`/,
    );
    await expect(
      client.createSession({ cwd: '/repo', mcpServers: [{ type: 'acp', name: 'words', serverId: 'w' }] }),
    ).rejects.toThrow(/an MCP server of type acp on session\/new.*`unstable: true`/);
    expect(client.mcp.serverIds).toEqual([]);
    expect(sent).toEqual(['initialize']);
  });

  it('answers an agent’s mcp/message -32601 (Method not found), as a client that predates MCP over ACP', async () => {
    const [agentSide, clientSide] = createInProcessPair();
    const agent = new Connection(agentSide).listen();
    const params = { serverId: 'words', requestId: 'r1', method: 'tools/list' };
    new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 'stable-client', version: '0.0.0' },
    });
    await expect(agent.sendRequest('mcp/message', params)).rejects.toMatchObject({
      code: -32601,
      data: { method: 'mcp/message' },
    });
    // Opted in, the same request reaches the host: no server with that ID here (-33001).
    const [agentSide2, clientSide2] = createInProcessPair();
    const agent2 = new Connection(agentSide2).listen();
    new Client(new Connection(clientSide2) as ClientConnection, {
      info: { name: 'unstable-client', version: '0.0.0' },
      unstable: true,
    });
    await expect(agent2.sendRequest('mcp/message', params)).rejects.toMatchObject({
      code: -33001,
      data: { serverId: 'words' },
    });
  });

  it('hosts an MCP server over ACP with unstable: true', () => {
    const [, clientSide] = createInProcessPair();
    const client = new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 'unstable-client', version: '0.0.0' },
      unstable: true,
    });
    const words = client.mcp.register({ name: 'words', handler: () => ({ result: {} }) });
    const transport = client.hostMcpServer({ name: 'sdk-server' });
    expect(client.mcp.serverIds).toEqual([words.serverId, transport.registration.serverId]);
    expect(words.declaration).toEqual({ type: 'acp', name: 'words', serverId: words.serverId });
  });

  it('sends them with unstable: true', async () => {
    const agent = new Agent({ ...base, unstable: true, capabilities: { session: { fork: {} } } });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(new Connection(agentSide) as never);
    const client = new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 'unstable-client', version: '0.0.0' },
      unstable: true,
    });
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const fork = await client.forkSession({ sessionId, cwd: '/repo' });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(client.store.unstable).toBe(true);
  });
});

describe('a store that did not opt in (forward compatibility)', () => {
  const notification = (update: Record<string, unknown>): SessionNotification =>
    ({ sessionId: 'sess_1', update }) as unknown as SessionNotification;
  const unstableUpdates: Record<string, Record<string, unknown>> = {
    subagent_update: { sessionUpdate: 'subagent_update', sessionId: 'sess_child' },
    plan_removed: { sessionUpdate: 'plan_removed', planId: 'plan_1' },
    session_message: {
      sessionUpdate: 'session_message',
      messageId: 'msg_1',
      content: [{ type: 'text', text: 'hi' }],
      senderSessionId: 'sess_child',
    },
    session_message_chunk: {
      sessionUpdate: 'session_message_chunk',
      messageId: 'msg_1',
      content: { type: 'text', text: '!' },
    },
  };

  it('keeps each unstable kind in otherUpdates with an unknown_update_kind diagnostic, and holds nothing by its rules', () => {
    expect(Object.keys(unstableUpdates).sort()).toEqual([...UNSTABLE_UPDATE_KINDS].sort());
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ onDiagnostic: (d) => diagnostics.push(d) });
    expect(store.unstable).toBe(false);
    store.apply(
      notification({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'plan_1', entries: [] } }),
    );
    for (const update of Object.values(unstableUpdates)) store.apply(notification(update));
    const snapshot = store.snapshot('sess_1');
    expect(snapshot.otherUpdates.map((o) => o.sessionUpdate).sort()).toEqual(
      [...UNSTABLE_UPDATE_KINDS].sort(),
    );
    expect(diagnostics.map((d) => d.code)).toEqual(
      Array(UNSTABLE_UPDATE_KINDS.size).fill('unknown_update_kind'),
    );
    // Nothing applied by the unstable rules: the plan is still there, no child, no session message.
    expect(snapshot.plans).toHaveLength(1);
    expect(snapshot.subagents).toEqual([]);
    expect(snapshot.messages).toEqual([]);
  });

  it('holds them by their rules with unstable: true', () => {
    const diagnostics: ConversationDiagnostic[] = [];
    const store = new ConversationStore({ unstable: true, onDiagnostic: (d) => diagnostics.push(d) });
    store.apply(
      notification({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'plan_1', entries: [] } }),
    );
    for (const update of Object.values(unstableUpdates)) store.apply(notification(update));
    const snapshot = store.snapshot('sess_1');
    expect(snapshot.otherUpdates).toEqual([]);
    expect(snapshot.plans).toEqual([]);
    expect(snapshot.subagents.map((s) => s.sessionId)).toEqual(['sess_child']);
    expect(snapshot.messages.map((m) => m.kind)).toEqual(['session_message']);
    expect(diagnostics).toEqual([]);
  });
});
