/**
 * `adaptMcpServer` (`@acp-kit/sdk/mcp-server`): a server written for the new MCP server package
 * (`@modelcontextprotocol/server`, its `McpServer` with a tool and a resource), provided by an
 * acp-kit client over MCP over ACP and used by an acp-kit agent: discovery, a tool call with its
 * progress, a `subscriptions/listen` that receives the change notifications it asked for (and not
 * the others) until the agent cancels it, and the package's own subscription bound.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Agent } from '../../src/agent/index.js';
import type { ClientPeer } from '../../src/agent/connection/client-peer.js';
import { type McpNotice, McpCallError } from '../../src/mcp-over-acp/index.js';
import { type AdaptedMcpServer, adaptMcpServer } from '../../src/mcp-over-acp/mcp-server-adapter.js';
import { wire } from './harness.js';

const CWD = '/tmp/mcp-server-adapter';

function projectTools(): McpServer {
  const server = new McpServer(
    { name: 'project-tools', version: '1.0.0' },
    { capabilities: { logging: {}, resources: { subscribe: true, listChanged: true } } },
  );
  server.registerTool(
    'word_count',
    { description: 'Counts the words of a text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }, ctx) => {
      await ctx.mcpReq.notify({
        method: 'notifications/message',
        params: { level: 'info', data: `counting ${text.length} characters` },
      });
      return { content: [{ type: 'text', text: `${text.split(/\s+/).filter(Boolean).length} words` }] };
    },
  );
  server.registerResource('readme', 'file:///repo/README.md', { mimeType: 'text/markdown' }, async (uri) => ({
    contents: [{ uri: uri.href, text: '# repo' }],
  }));
  return server;
}

interface Reached {
  client: ClientPeer;
  sessionId: string;
}

/** An agent whose prompt hands the test the client peer and session, then waits for `release`. */
function reachingAgent(): { agent: Agent; reached: Promise<Reached>; release: () => void } {
  let reach!: (value: Reached) => void;
  const reached = new Promise<Reached>((resolve) => {
    reach = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const agent = new Agent({
    info: { name: 'mcp-agent', version: '0.0.0' },
    unstable: true,
    mcpOverAcp: { info: { name: 'mcp-agent', version: '0.0.0' } },
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      reach({ client, sessionId: session.id });
      await released;
      await session.idle('end_turn');
    },
  });
  return { agent, reached, release };
}

async function provided(tools: AdaptedMcpServer) {
  const { agent, reached, release } = reachingAgent();
  const { client } = wire(agent);
  await client.initialize();
  const registration = client.mcp.register({ name: 'project-tools', handler: tools.handler });
  const sessionId = await client.newSession(CWD, [registration.declaration]);
  const turn = client.submit(sessionId, [{ type: 'text', text: 'go' }]).turnEnd;
  const peer = await reached;
  const handle = agent.mcp!.server(peer.client, registration.serverId);
  return { handle, release, turn };
}

describe('adaptMcpServer: an @modelcontextprotocol/server server over MCP over ACP', {
  timeout: 10_000,
}, () => {
  it('lists and calls a tool with its notification, reads a resource and answers an unknown tool with an MCP error', async () => {
    const tools = adaptMcpServer(() => projectTools());
    const { handle, release, turn } = await provided(tools);
    const listed = await handle.listTools();
    expect(listed.map((t) => t.name)).toEqual(['word_count']);
    expect(listed[0]!.inputSchema).toMatchObject({ properties: { text: { type: 'string' } } });
    const notices: McpNotice[] = [];
    const result = await handle.callTool(
      'word_count',
      { text: 'one two three' },
      { onNotification: (n) => notices.push(n) },
    );
    expect(result.content).toEqual([{ type: 'text', text: '3 words' }]);
    expect(notices).toEqual([
      { method: 'notifications/message', params: { level: 'info', data: 'counting 13 characters' } },
    ]);
    const read = (await handle.call('resources/read', { uri: 'file:///repo/README.md' })) as {
      contents: { text: string }[];
    };
    expect(read.contents[0]!.text).toBe('# repo');
    const refused = await handle.callTool('nope').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpCallError);
    expect((refused as McpCallError).message).toMatch(/nope/);
    release();
    await turn;
    await tools.close();
  });

  it('delivers the change notifications a subscriptions/listen asked for, and no others, until the agent cancels it', async () => {
    const tools = adaptMcpServer(() => projectTools());
    const { handle, release, turn } = await provided(tools);
    const notices: McpNotice[] = [];
    let notified: () => void = () => undefined;
    const cancel = new AbortController();
    const listening = handle
      .call(
        'subscriptions/listen',
        { notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///repo/README.md'] } },
        {
          signal: cancel.signal,
          onNotification: (n) => {
            notices.push(n);
            notified();
          },
        },
      )
      .catch((error: unknown) => error);
    const next = (count: number): Promise<void> =>
      new Promise((resolve) => {
        notified = () => {
          if (notices.length >= count) resolve();
        };
        notified();
      });
    await next(1);
    expect(notices[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///repo/README.md'] },
      },
    });
    // Not asked for: prompts. Asked for: tools, and updates of the README only.
    tools.notify.promptsChanged();
    tools.notify.resourceUpdated('file:///repo/other.md');
    tools.notify.toolsChanged();
    tools.notify.resourceUpdated('file:///repo/README.md');
    await next(3);
    expect(notices.slice(1).map((n) => n.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/updated',
    ]);
    expect(notices[2]!.params).toMatchObject({ uri: 'file:///repo/README.md' });
    cancel.abort();
    expect(await listening).toMatchObject({ code: -32800 });
    release();
    await turn;
    await tools.close();
  });

  it('refuses a subscription past maxSubscriptions with an MCP error, while the open one keeps its stream', async () => {
    const tools = adaptMcpServer(() => projectTools(), { maxSubscriptions: 1 });
    const { handle, release, turn } = await provided(tools);
    const first = new AbortController();
    const acknowledged = new Promise<void>((resolve) => {
      void handle
        .call(
          'subscriptions/listen',
          { notifications: { toolsListChanged: true } },
          { signal: first.signal, onNotification: () => resolve() },
        )
        .catch(() => undefined);
    });
    await acknowledged;
    const second = await handle
      .call('subscriptions/listen', { notifications: { toolsListChanged: true } })
      .catch((error: unknown) => error);
    expect(second).toBeInstanceOf(McpCallError);
    expect((second as McpCallError).message).toMatch(/Subscription limit/);
    first.abort();
    release();
    await turn;
    await tools.close();
  });
});
