/**
 * `acp-kit agent --unstable` is what turns upstream's unstable surface on in the reference agent:
 * without it the real agent process is stable-only (no unstable capability advertised, every
 * unstable method -32601 with the capability it lacks, the unstable slash commands neither offered
 * nor run); with it every unstable capability is advertised and served.
 */
import { METHODS } from '@acp-kit/schema';
import { UNSTABLE_METHODS } from '@acp-kit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess, clientOver, idleCount, requireBuild, type TestClient } from '../harness.js';

beforeAll(requireBuild);

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

async function started(args: string[]): Promise<TestClient> {
  const transport = agentProcess(['--chunk-delay', '0', ...args]);
  stops.push(async () => void (await transport.shutdown()));
  return clientOver(transport, args.includes('--unstable') ? { unstable: true } : {});
}

/** Sends a request as raw JSON-RPC (our Client refuses unstable methods unless it opted in). */
function raw(t: TestClient, method: string, params: unknown): Promise<unknown> {
  return (t.connection as unknown as { sendRequest(m: string, p: unknown): Promise<unknown> }).sendRequest(
    method,
    params,
  );
}

/** A valid request for each unstable client-to-agent method, naming `sessionId`. */
function requestsFor(sessionId: string): Record<string, unknown> {
  return {
    'session/fork': { sessionId, cwd: '/repo' },
    'session/set_title': { sessionId, title: 'A title' },
    'session/status': { sessionId },
    'session/archive': { sessionId },
    'session/unarchive': { sessionId },
    'auth/status': {},
    'providers/list': {},
    'providers/set': {
      providerId: 'main',
      apiType: 'openai',
      baseUrl: 'https://llm.example/v1',
      headers: {},
    },
    'providers/disable': { providerId: 'embeddings' },
  };
}

/** Proxy-chain requests: a conductor sends them to a proxy, which the reference agent never is. */
const PROXY_REQUESTS: Record<string, unknown> = {
  'proxy/initialize': { protocolVersion: 2, info: { name: 'conductor', version: '0' } },
  'proxy/successor': { method: 'session/list', params: {} },
};

/** Next edit suggestion requests, for an NES session that does not exist (the opt-in is what is checked). */
const NES_REQUESTS: Record<string, unknown> = {
  'nes/start': {},
  'nes/suggest': {
    sessionId: 'nes_none',
    uri: 'file:///a.ts',
    version: 1,
    position: { line: 0, character: 0 },
    triggerKind: 'manual',
  },
  'nes/close': { sessionId: 'nes_none' },
};

describe('acp-kit agent --unstable', () => {
  it('without it: advertises no unstable capability and answers every unstable method -32601', async () => {
    const t = await started([]);
    const init = await t.client.initialize();
    expect(init.capabilities).toEqual({ session: { delete: {} } });
    const sessionId = await t.client.newSession('/repo');
    const requests = requestsFor(sessionId);
    // Every unstable request a client sends an agent is here (the others are the agent's to send).
    const clientRequests = METHODS.filter(
      (m) => m.direction !== 'agent_to_client' && m.kind === 'request' && UNSTABLE_METHODS.has(m.name),
    ).map((m) => m.name);
    const all = { ...requests, ...PROXY_REQUESTS, ...NES_REQUESTS };
    expect(Object.keys(all).sort()).toEqual(clientRequests.sort());
    for (const [method, params] of Object.entries(all)) {
      await expect(raw(t, method, params), method).rejects.toMatchObject({ code: -32601 });
    }
    // A system prompt is an unstable field: a stable-only agent does not take one.
    await expect(
      raw(t, 'session/new', {
        cwd: '/repo',
        mcpServers: [],
        systemPrompt: { mode: 'append', content: [{ type: 'text', text: 'Be brief.' }] },
      }),
    ).rejects.toMatchObject({ code: -32602 });
    // So is an MCP server the client provides over ACP (MCP over ACP is unstable).
    await expect(
      raw(t, 'session/new', {
        cwd: '/repo',
        mcpServers: [{ type: 'acp', name: 'tools', serverId: 'srv-1' }],
      }),
    ).rejects.toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/0/type' } });
  });

  it('without it: offers no unstable slash command and runs none (plain prompts instead)', async () => {
    const t = await started([]);
    const created = await t.client.createSession({ cwd: '/repo' });
    const names = created.availableCommands?.map((c) => c.name) ?? [];
    expect(names).toContain('run');
    for (const command of ['plan', 'unplan', 'subagent']) expect(names).not.toContain(command);
    let turns = 0;
    for (const text of ['/plan 1. Ship it', '/unplan', '/subagent look around']) {
      await t.client.prompt(created.sessionId, [{ type: 'text', text }]);
      await idleCount(t, ++turns);
    }
    const kinds = new Set(t.updates().map((u) => u.sessionUpdate));
    for (const kind of ['plan_update', 'plan_removed', 'subagent_update'])
      expect(kinds.has(kind as never)).toBe(false);
    expect(t.client.store.snapshot(created.sessionId).subagents).toEqual([]);
  });

  it('with it: advertises every unstable capability, serves each method and offers the unstable commands', async () => {
    const t = await started(['--unstable']);
    const init = await t.client.initialize();
    expect(init.capabilities).toMatchObject({
      auth: { status: {} },
      providers: {},
      session: { archive: {}, delete: {}, fork: {}, status: {}, title: {}, systemPrompt: {} },
    });
    const created = await t.client.createSession({ cwd: '/repo' });
    expect(created.availableCommands?.map((c) => c.name)).toEqual(
      expect.arrayContaining(['plan', 'unplan', 'subagent']),
    );
    for (const [method, params] of Object.entries(requestsFor(created.sessionId))) {
      await expect(raw(t, method, params), method).resolves.toBeDefined();
    }
    expect(init.capabilities?.nes).toBeDefined();
    expect(init.capabilities?.positionEncoding).toBe('utf-16');
    const nesSession = (await raw(t, 'nes/start', {})) as { sessionId: string };
    await expect(raw(t, 'nes/close', { sessionId: nesSession.sessionId })).resolves.toEqual({});
  });
});
