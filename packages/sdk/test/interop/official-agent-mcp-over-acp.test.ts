/**
 * #29, MCP over ACP the other way round: an agent written with the official SDK's experimental v2
 * agent API and its `McpOverAcpCaller` (fixtures/official-agent-mcp.ts, a child process) calls a
 * tool of an MCP server our `Client` hosts (`client.mcp.register`). The tool's result reaches it,
 * and the progress notification our host sends for the request goes out before the answer; a
 * server our client does not provide is answered -33001 and a withdrawn one -33001, which the
 * official caller reports as JSON-RPC errors; an MCP error travels as the inner outcome.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection, type Diagnostic } from '../../src/rpc/index.js';
import { type ChildProcessTransport, spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('./fixtures/official-agent-mcp.ts', import.meta.url));

let transport: ChildProcessTransport | undefined;
afterEach(async () => {
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

const replies = (client: Client, sessionId: string) =>
  client.store
    .snapshot(sessionId)
    .messages.filter((m) => m.kind === 'agent_message')
    .map((m) => m.content.map((b) => ('text' in b ? b.text : '')).join(''));

describe('an official-SDK agent with McpOverAcpCaller using an MCP server our Client hosts', () => {
  it('calls the tool (result and progress), and gets -33001 for an unknown or withdrawn server and the MCP error inside', async () => {
    transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture], {
      name: 'official mcp agent',
    });
    const connection: ClientConnection = new Connection(transport);
    const diagnostics: Diagnostic[] = [];
    connection.onDiagnostic((diagnostic) => diagnostics.push(diagnostic));
    const sent: { id?: unknown; method?: string; params?: unknown; result?: unknown }[] = [];
    connection.onMessage((direction, message) => {
      if (direction === 'out') sent.push(message as (typeof sent)[number]);
    });
    const client = new Client(connection, {
      info: { name: 'acp-kit-interop', version: '0.0.0' },
      unstable: true,
    });
    const init = await client.initialize();
    expect(init.capabilities?.session?.mcp?.acp).toEqual({});

    const metas: unknown[] = [];
    const tools = client.mcp.register({
      name: 'tools',
      serverId: 'tools-1',
      handler: async ({ method, params, notify }) => {
        metas.push(params?._meta);
        if (method !== 'tools/call') return { error: { code: -32601, message: `no ${method}` } };
        if (params?.name !== 'reverse')
          return { error: { code: -32602, message: `Unknown tool: ${String(params?.name)}` } };
        await notify('notifications/progress', { progressToken: 'p', progress: 1 });
        const text = String((params.arguments as { text?: unknown }).text);
        return { result: { content: [{ type: 'text', text: [...text].reverse().join('') }] } };
      },
    });
    const { sessionId } = await client.createSession({ cwd: '/work', mcpServers: [tools.declaration] });
    await client.promptToEnd(sessionId, [
      { type: 'text', text: 'call tools-1 reverse {"text": "stressed"}' },
    ]);
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'call tools-1 nope {}' }]);
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'call tools-404 reverse {"text": "x"}' }]);
    await tools.dispose();
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'call tools-1 reverse {"text": "x"}' }]);

    const said = replies(client, sessionId);
    // Our host writes the request's progress notification before its answer. The official agent
    // dispatches notifications through async handlers but settles responses at once, so its caller
    // has sometimes settled (and drops the notification, as its docs say) before the handler runs.
    const notified = sent.findIndex((m) => m.method === 'mcp/message' && m.id === undefined);
    const answered = sent.findIndex(
      (m) => m.method === undefined && JSON.stringify(m.result ?? '').includes('desserts'),
    );
    expect(notified).toBeGreaterThanOrEqual(0);
    expect(notified).toBeLessThan(answered);
    expect(said[0]).toMatch(/^desserts \[(notifications\/progress)?\]$/);
    expect(said[1]).toBe('MCP error -32602: Unknown tool: nope');
    expect(said[2]).toMatch(/^failed -33001: /);
    expect(said[3]).toMatch(/^failed -33001: /);
    // The official caller sends the per-request metadata of MCP 2026-07-28.
    expect(metas[0]).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'official-mcp-agent' },
    });
    expect(diagnostics).toEqual([]);
  });
});
