/**
 * #29, MCP over ACP against the official SDK: the official v2 client (its unstable entry) provides
 * an MCP server with its own `McpOverAcpProvider` and declares it for a session of the real
 * `acp-kit agent` process over stdio; `/mcp` lists the server's tools and calls one through
 * `mcp/message`. The official provider checks the per-request MCP metadata the binding requires
 * (protocol version 2026-07-28, client capabilities), so a call that reaches its handler proves
 * our caller sends them; an MCP error it returns shows as a failed tool call.
 */
import {
  McpOverAcpProvider,
  McpProtocolError,
  methods,
  client as officialClient,
} from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, OFFICIAL_INITIALIZE, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** Waits until the agent wrote a line containing `text`. */
async function written(agent: AgentProcess, text: string): Promise<void> {
  for (let waited = 0; !agent.wire.some((m) => JSON.stringify(m).includes(text)); waited += 20) {
    if (waited > 60_000) throw new Error(`the agent never wrote ${text}\n${agent.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the official v2 client providing an MCP server to acp-kit agent', () => {
  it('has its McpOverAcpProvider server listed and called by /mcp, and its MCP error shown', async () => {
    const errors = vi.spyOn(console, 'error');
    const agent = spawnAgentProcess(0, ['--unstable']);
    running = agent;
    const provider = new McpOverAcpProvider();
    const seen: { method: string; protocolVersion: string; clientInfo: unknown }[] = [];
    await officialClient({ name: 'interop-official-mcp' })
      .onRequest(methods.client.mcp.message, provider.handleRequest)
      .connectWith(agent.stream, async (ctx) => {
        await ctx.request('initialize', OFFICIAL_INITIALIZE);
        const server = provider.registerServer(ctx, {
          name: 'official-tools',
          serverId: 'official-tools-1',
          handler: async ({ method, params, protocolVersion, clientInfo }) => {
            seen.push({ method, protocolVersion, clientInfo });
            if (method === 'tools/list')
              return { result: { tools: [{ name: 'shout', inputSchema: { type: 'object' } }] } };
            if (method === 'tools/call' && params?.name === 'shout') {
              const text = String((params.arguments as { text?: unknown })?.text ?? '');
              return { result: { content: [{ type: 'text', text: text.toUpperCase() }] } };
            }
            throw new McpProtocolError(-32602, `Unknown tool: ${String(params?.name)}`);
          },
        });
        const { sessionId } = await ctx.request('session/new', {
          cwd: '/tmp',
          mcpServers: [server.declaration],
        });
        await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/mcp' }] });
        await written(agent, 'MCP tools over ACP');
        await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: '/mcp shout {"text": "quiet words"}' }],
        });
        await written(agent, 'QUIET WORDS');
        await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: '/mcp @official-tools-1 whisper {}' }],
        });
        await written(agent, 'Unknown tool: whisper');
      });

    const advertised = agent.wire.find(
      (m) => (m.result as { protocolVersion?: unknown })?.protocolVersion === 2,
    )?.result as { capabilities?: { session?: { mcp?: unknown } } };
    expect(advertised.capabilities?.session?.mcp).toMatchObject({ acp: {} });
    expect(seen.map((s) => s.method)).toEqual(['tools/list', 'tools/list', 'tools/call', 'tools/call']);
    expect(seen.every((s) => s.protocolVersion === '2026-07-28')).toBe(true);
    expect(seen[0]!.clientInfo).toMatchObject({ name: 'acp-kit-agent' });
    const listed = agent.wire.find((m) => JSON.stringify(m).includes('MCP tools over ACP'));
    expect(JSON.stringify(listed)).toContain('official-tools: shout');
    const updates = agent.wire
      .filter((m) => m.method === 'session/update')
      .map((m) => (m.params as { update: Record<string, unknown> }).update)
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress');
    expect(updates.map((u) => [u.status, JSON.stringify(u.content)])).toEqual([
      ['completed', expect.stringContaining('QUIET WORDS')],
      ['failed', expect.stringContaining('MCP error -32602: Unknown tool: whisper')],
    ]);
    expect(errors.mock.calls).toEqual([]);
  });
});
