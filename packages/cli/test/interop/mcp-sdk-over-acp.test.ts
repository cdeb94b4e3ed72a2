/**
 * MCP over ACP end to end (upstream's unstable mcp-over-acp draft, #29): the client application
 * hosts an MCP server built with the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`,
 * its `Server` with a `word_count` tool), declares it as an `McpServer` of type `acp`, and
 * `acp-kit agent` — a real child process over stdio — lists and calls the tool with `mcp/message`
 * through `/mcp`; the result shows in the conversation as a tool call. Bad input gets clear
 * answers and nothing hangs: an unknown server ID, a withdrawn server, an MCP error, malformed
 * `/mcp` arguments, `mcp/message` sent the wrong way and garbage notifications.
 */
import type { Transport as McpTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { RpcError } from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess, clientOver, idleCount, requireBuild, type TestClient, textOf } from '../harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(() => requireBuild());

/** The MCP server the client application provides: one tool, built with the official MCP SDK. */
function projectTools(calls: string[]): Server {
  const server = new Server({ name: 'project-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
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
    // A notification about this request: the transport sends it to the agent as mcp/message.
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: 'count', progress: 1, total: 1 },
    });
    const text = String((request.params.arguments as { text?: unknown } | undefined)?.text ?? '');
    const count = text.split(/\s+/).filter(Boolean).length;
    return { content: [{ type: 'text', text: `${count} word(s) in "${text}"` }] };
  });
  return server;
}

async function start(): Promise<TestClient<true>> {
  const transport = agentProcess(['--unstable', '--chunk-delay', '0']);
  cleanups.push(async () => void (await transport.shutdown({ graceMs: 500 })));
  return clientOver(transport, { unstable: true });
}

/** Sends a prompt and waits for the turn's idle (the `round`-th of the connection). */
async function turn(t: TestClient, sessionId: string, text: string, round: number): Promise<void> {
  await t.client.prompt(sessionId, [{ type: 'text', text }]);
  await idleCount(t, round);
}

const agentText = (t: TestClient, sessionId: string): string[] =>
  t.client.store
    .snapshot(sessionId)
    .messages.filter((m) => m.kind === 'agent_message')
    .map((m) => textOf(m.content));

const toolCalls = (t: TestClient, sessionId: string) =>
  t.client.store.snapshot(sessionId).toolCalls.map((c) => ({
    title: c.fields.title,
    status: c.fields.status,
    text: textOf(((c.fields.content ?? []) as { content: unknown }[]).map((x) => x.content)),
  }));

describe('MCP over ACP with the official MCP SDK and acp-kit agent', () => {
  it('lists and calls a tool of an MCP SDK server the client hosts; the result shows in the conversation', async () => {
    const t = await start();
    const init = t.incoming.find((m) => (m.result as { protocolVersion?: unknown })?.protocolVersion);
    const advertised = init?.result as { capabilities?: { session?: { mcp?: unknown } } } | undefined;
    expect(advertised?.capabilities?.session?.mcp).toMatchObject({ acp: {} });
    const calls: string[] = [];
    const transport = t.client.hostMcpServer({ name: 'project-tools' });
    await projectTools(calls).connect(transport as unknown as McpTransport);
    cleanups.push(() => transport.close());
    const sessionId = await t.client.newSession('/work', [transport.registration.declaration]);
    const sent: { method?: string; id?: unknown; params?: unknown }[] = [];
    t.connection.onMessage((direction, message) => {
      if (direction === 'out') sent.push(message as (typeof sent)[number]);
    });

    await turn(t, sessionId, '/mcp', 1);
    expect(agentText(t, sessionId).at(-1)).toBe(
      'MCP tools over ACP:\nproject-tools: word_count (Counts the words of a text)',
    );

    await turn(t, sessionId, '/mcp word_count {"text": "one two three"}', 2);
    expect(calls).toEqual(['word_count {"text":"one two three"}']);
    expect(toolCalls(t, sessionId)).toEqual([
      { title: 'MCP project-tools: word_count', status: 'completed', text: '3 word(s) in "one two three"' },
    ]);
    // What went over the wire: agent → client mcp/message requests, answered with MCP outcomes.
    const asked = t.incoming.filter((m) => m.method === 'mcp/message');
    expect(asked.map((m) => (m.params as { method: string }).method)).toEqual([
      'tools/list',
      'tools/list',
      'tools/call',
    ]);
    // The server's progress notification went back for the tools/call request, and only for it.
    const callId = (asked[2]!.params as { requestId: string }).requestId;
    expect(sent.filter((m) => m.method === 'mcp/message' && m.id === undefined).map((m) => m.params)).toEqual(
      [
        {
          serverId: transport.registration.serverId,
          requestId: callId,
          method: 'notifications/progress',
          params: { progressToken: 'count', progress: 1, total: 1 },
        },
      ],
    );
    expect((asked[2]!.params as { params: { _meta: Record<string, unknown> } }).params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'acp-kit-agent' },
    });
  });

  it('answers an MCP error, an unknown server, a withdrawn server and malformed input clearly, and never hangs', async () => {
    const t = await start();
    const calls: string[] = [];
    const transport = t.client.hostMcpServer({ name: 'project-tools', serverId: 'tools-1' });
    await projectTools(calls).connect(transport as unknown as McpTransport);
    const sessionId = await t.client.newSession('/work', [transport.registration.declaration]);

    // The MCP server's own error (an unknown tool): a failed tool call carrying it.
    await turn(t, sessionId, '/mcp @tools-1 nope {}', 1);
    // A server ID the client never declared: the agent refuses it before sending anything (-33001).
    await turn(t, sessionId, '/mcp @tools-404 word_count {"text": "a"}', 2);
    // Arguments that are not a JSON object: a usage message, nothing sent.
    await turn(t, sessionId, '/mcp word_count {not json', 3);
    // A tool no declared server offers.
    await turn(t, sessionId, '/mcp missing_tool', 4);
    // The client withdraws the server (transport closed): the client answers -33001.
    await transport.close();
    await turn(t, sessionId, '/mcp @tools-1 word_count {"text": "a b"}', 5);

    expect(toolCalls(t, sessionId)).toEqual([
      {
        title: 'MCP project-tools: nope',
        status: 'failed',
        text: 'MCP error -32602: MCP error -32602: Unknown tool: nope',
      },
      {
        title: 'MCP tools-404: word_count',
        status: 'failed',
        text: expect.stringMatching(
          /^mcp\/message failed with -33001: MCP server tools-404 is not available/,
        ),
      },
      {
        title: 'MCP project-tools: word_count',
        status: 'failed',
        text: 'mcp/message failed with -33001: MCP server tools-1 is not available: it was withdrawn',
      },
    ]);
    expect(agentText(t, sessionId)).toEqual([
      'Usage: /mcp [@serverId] <tool> [json arguments] — the arguments of word_count must be one JSON object, for example {"text": "a b c"}.',
      'No declared MCP server offers a tool named missing_tool.',
    ]);
    expect(calls).toEqual(['nope {}']);

    // mcp/message is not something a client asks an agent: -32601.
    const wrongWay = await t.connection
      .sendRequest(
        'mcp/message' as never,
        { serverId: 'tools-1', requestId: 'r', method: 'tools/list' } as never,
      )
      .then(
        () => undefined,
        (e: RpcError) => e,
      );
    expect(wrongWay?.code).toBe(-32601);
    // Garbage and stray notifications are dropped; the agent goes on answering.
    await t.connection.sendNotification('mcp/message' as never, { serverId: 7 } as never);
    await t.connection.sendNotification(
      'mcp/message' as never,
      {
        serverId: 'tools-1',
        requestId: 'nobody',
        method: 'notifications/progress',
      } as never,
    );
    await turn(t, sessionId, 'still here', 6);
    expect(agentText(t, sessionId).at(-1)).toContain('still here');
  });

  it('cancels a slow tool call end to end: session/cancel reaches the MCP SDK handler as notifications/cancelled', async () => {
    const t = await start();
    const server = new Server({ name: 'slow-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
    let aborted!: () => void;
    const handlerAborted = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'wait', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(
      CallToolRequestSchema,
      (_request, extra) =>
        new Promise((_, reject) =>
          extra.signal.addEventListener('abort', () => {
            aborted();
            reject(new Error('aborted'));
          }),
        ),
    );
    const transport = t.client.hostMcpServer({ name: 'slow-tools' });
    await server.connect(transport as unknown as McpTransport);
    cleanups.push(() => transport.close());
    const sessionId = await t.client.newSession('/work', [transport.registration.declaration]);
    await t.client.prompt(sessionId, [{ type: 'text', text: '/mcp wait' }]);
    await t.until((incoming) =>
      incoming.some(
        (m) => m.method === 'mcp/message' && (m.params as { method: string }).method === 'tools/call',
      ),
    );
    await t.client.cancel(sessionId);
    await handlerAborted;
    await idleCount(t, 1);
    const idle = t
      .updates()
      .filter((u) => u.sessionUpdate === 'state_update')
      .at(-1) as { stopReason?: string };
    expect(idle.stopReason).toBe('cancelled');
    expect(toolCalls(t, sessionId)).toEqual([
      {
        title: 'MCP slow-tools: wait',
        status: 'failed',
        text: expect.stringMatching(/^mcp\/message failed with -32800: /),
      },
    ]);
  });

  it('is refused by an agent for a session without acp servers: /mcp says none were declared', async () => {
    const t = await start();
    const sessionId = await t.client.newSession('/work');
    await turn(t, sessionId, '/mcp', 1);
    expect(agentText(t, sessionId)).toEqual(['No MCP servers of type acp were declared for this session.']);
  });
});
