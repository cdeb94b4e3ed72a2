/**
 * MCP over ACP (upstream's unstable surface, the mcp-over-acp draft): an agent given `mcpOverAcp`
 * advertises `capabilities.session.mcp.acp`, records the acp servers a client declares and reaches
 * them with `mcp/message`; the client's {@link McpServerHost} routes each request to the server it
 * names and answers every failure of the binding with a JSON-RPC error (never a hang). Without the
 * option, an acp server is refused -32602 at its pointer.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { McpBindingErrors, McpCallError, type McpServerHandler } from '../../src/mcp-over-acp/index.js';
import { Connection, RpcError } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';
import { refusal, wire } from './harness.js';

const CWD = '/tmp/mcp-over-acp';

/** A tiny MCP server: one tool that counts words, with a progress notification per call. */
const wordCounter: McpServerHandler = async ({ method, params, notify }) => {
  if (method === 'tools/list')
    return { result: { tools: [{ name: 'word_count', inputSchema: { type: 'object' } }] } };
  if (method === 'tools/call') {
    const args = (params?.arguments ?? {}) as { text?: string };
    if (params?.name !== 'word_count')
      return { error: { code: -32602, message: `Unknown tool: ${String(params?.name)}` } };
    await notify('notifications/progress', { progressToken: 't', progress: 1, total: 1 });
    const count = (args.text ?? '').split(/\s+/).filter(Boolean).length;
    return { result: { content: [{ type: 'text', text: `${count} words` }] } };
  }
  return { error: { code: -32601, message: `Method not found: ${method}` } };
};

function agentOptions(extra: Partial<AgentOptions> = {}): AgentOptions {
  return {
    info: { name: 'mcp-agent', version: '0.0.0' },
    unstable: true,
    mcpOverAcp: true,
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      const [server] = agent().mcp!.servers(session.id, client);
      const handle = agent().mcp!.server(client, server!.serverId);
      const tools = await handle.listTools();
      const progress: string[] = [];
      const result = await handle.callTool(
        'word_count',
        { text: 'one two three' },
        { onNotification: (n) => progress.push(n.method) },
      );
      const text = (result.content as { text: string }[])[0]!.text;
      let refused = '';
      try {
        await handle.callTool('nope');
      } catch (error) {
        refused = error instanceof McpCallError ? `${error.code} ${error.message}` : String(error);
      }
      const reply = await session.agentMessage();
      await reply.replace([
        {
          type: 'text',
          text: `tools: ${tools.map((t) => t.name).join(',')}; result: ${text}; progress: ${progress.join(',')}; refused: ${refused}`,
        },
      ]);
      await session.idle('end_turn');
    },
    ...extra,
  };
}
/** The agent under test, which its own prompt handler reaches the client's servers through. */
let current: Agent | undefined;
const agent = () => current!;

describe('MCP over ACP', () => {
  it('advertises session.mcp.acp and reaches a server the client provides: tools listed, a tool called, its progress and an MCP error', async () => {
    current = new Agent(agentOptions());
    const { client, received } = wire(current);
    const init = await client.initialize();
    expect(init.capabilities?.session?.mcp?.acp).toEqual({});
    const tools = client.mcp.register({ name: 'words', handler: wordCounter });
    const sessionId = await client.newSession(CWD, [tools.declaration]);
    const turn = client.submit(sessionId, [{ type: 'text', text: 'count' }]).turnEnd;
    expect(await turn).toMatchObject({ stopReason: 'end_turn' });
    const said = client.store
      .snapshot(sessionId)
      .messages.filter((m) => m.kind === 'agent_message')
      .flatMap((m) => m.content.map((c) => (c.type === 'text' ? c.text : '')))
      .join('');
    expect(said).toBe(
      'tools: word_count; result: 3 words; progress: notifications/progress; refused: -32602 Unknown tool: nope',
    );
    expect(
      received.filter((r) => r.type === 'request').map((r) => (r as { method: string }).method),
    ).toContain('mcp/message');
  });

  it('without the option, does not advertise acp and refuses an acp server -32602 at its pointer', async () => {
    const plain = new Agent({ ...agentOptions(), mcpOverAcp: undefined });
    const { client } = wire(plain);
    const init = await client.initialize();
    expect(init.capabilities?.session?.mcp?.acp).toBeUndefined();
    const error = await refusal(client.newSession(CWD, [{ type: 'acp', name: 'words', serverId: 'srv-1' }]));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ pointer: '/params/mcpServers/0/type' });
    expect(plain.sessions.size).toBe(0);
  });

  it('refuses a serverId declared twice in one request, and a server the client never declared before sending anything', async () => {
    current = new Agent(agentOptions());
    const { client } = wire(current);
    await client.initialize();
    const twice = { type: 'acp' as const, name: 'a', serverId: 'same' };
    const error = await refusal(client.newSession(CWD, [twice, { ...twice, name: 'b' }]));
    expect(error).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/1/serverId' } });
    const peer = { label: 'nobody' } as never;
    await expect(current.mcp!.request(peer, 'srv-x', 'tools/list')).rejects.toMatchObject({
      code: McpBindingErrors.ServerUnavailable,
    });
  });
});

/** A client whose agent side is a raw connection, to send it any `mcp/message` at all. */
function rawAgent() {
  const [agentSide, clientSide] = createInProcessPair();
  const client = new Client(new Connection(clientSide), {
    info: { name: 'host', version: '0.0.0' },
    unstable: true,
  });
  const raw = new Connection(agentSide);
  raw.listen();
  const notices: unknown[] = [];
  raw.onNotification('mcp/message' as never, (params: unknown) => void notices.push(params));
  const send = (params: unknown, signal?: AbortSignal) =>
    raw.sendRequest('mcp/message' as never, params as never, signal ? { signal } : undefined);
  return { client, raw, send, notices };
}

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

describe("the client's MCP server host", () => {
  it('answers an unknown serverId -33001, and a withdrawn server -33001 saying so', async () => {
    const { client, send } = rawAgent();
    const unknown = await failure(send({ serverId: 'nope', requestId: 'r1', method: 'tools/list' }));
    expect(unknown.code).toBe(-33001);
    expect(unknown.message).toContain('no server with this ID');
    const words = client.mcp.register({ name: 'words', handler: wordCounter });
    expect(await send({ serverId: words.serverId, requestId: 'r2', method: 'tools/list' })).toMatchObject({
      result: { tools: [{ name: 'word_count' }] },
    });
    await words.dispose();
    const gone = await failure(send({ serverId: words.serverId, requestId: 'r3', method: 'tools/list' }));
    expect(gone.code).toBe(-33001);
    expect(gone.message).toContain('withdrawn');
  });

  it('answers garbage envelopes -32602 with the pointer, before any server runs', async () => {
    const { client, send } = rawAgent();
    let calls = 0;
    const words = client.mcp.register({
      name: 'words',
      handler: async (r) => {
        calls += 1;
        return wordCounter(r);
      },
    });
    const cases: [unknown, string][] = [
      [{ requestId: 'r1', method: 'tools/list' }, '/params/serverId'],
      [{ serverId: words.serverId, requestId: 7, method: 'tools/list' }, '/params/requestId'],
      [{ serverId: words.serverId, requestId: 'r1', method: 'tools/call', params: ['x'] }, '/params/params'],
      [{ serverId: words.serverId, requestId: 'r1', method: '' }, '/params/method'],
    ];
    for (const [params, pointer] of cases) {
      const error = await failure(send(params));
      expect(error.code, JSON.stringify(params)).toBe(-32602);
      expect((error.data as { pointer: string }).pointer, JSON.stringify(params)).toBe(pointer);
    }
    // Params that are not even an object or array are not a JSON-RPC request at all.
    expect((await failure(send('not an object'))).code).toBe(-32600);
    expect(calls).toBe(0);
  });

  it('answers a duplicate active requestId -32602, a failing server -33002, a bad outcome -33002, and a cancelled request -32800', async () => {
    const { client, send } = rawAgent();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = client.mcp.register({
      name: 'slow',
      handler: async ({ signal }) => {
        await Promise.race([
          held,
          new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
        ]);
        return { result: null };
      },
    });
    const first = send({ serverId: slow.serverId, requestId: 'same', method: 'ping' });
    const duplicate = await failure(send({ serverId: slow.serverId, requestId: 'same', method: 'ping' }));
    expect(duplicate).toMatchObject({ code: -32602, data: { pointer: '/params/requestId' } });
    release();
    expect(await first).toEqual({ result: null });

    const broken = client.mcp.register({
      name: 'broken',
      handler: async () => {
        throw new Error('disk on fire');
      },
    });
    const failed = await failure(send({ serverId: broken.serverId, requestId: 'r', method: 'ping' }));
    expect(failed.code).toBe(-33002);
    expect(failed.message).toContain('disk on fire');

    const confused = client.mcp.register({
      name: 'confused',
      handler: async () => ({ answer: 42 }) as never,
    });
    const bad = await failure(send({ serverId: confused.serverId, requestId: 'r', method: 'ping' }));
    expect(bad.code).toBe(-33002);

    const stuck = client.mcp.register({
      name: 'stuck',
      handler: ({ signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    });
    const controller = new AbortController();
    const pending = send({ serverId: stuck.serverId, requestId: 'r', method: 'ping' }, controller.signal);
    setTimeout(() => controller.abort(), 10);
    expect((await failure(pending)).code).toBe(-32800);
  });

  it('limits active requests per server (-33000) and sends a notification only while its request is active', async () => {
    const { client, send, notices } = rawAgent();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let late: (() => Promise<void>) | undefined;
    const one = client.mcp.register({
      name: 'one',
      maxActiveRequests: 1,
      handler: async ({ notify }) => {
        await notify('notifications/progress', { progress: 1 });
        late = () => notify('notifications/progress', { progress: 2 });
        await held;
        return { result: {} };
      },
    });
    const first = send({ serverId: one.serverId, requestId: 'a', method: 'x' });
    const limited = await failure(send({ serverId: one.serverId, requestId: 'b', method: 'x' }));
    expect(limited.code).toBe(-33000);
    release();
    await first;
    await late!();
    expect(notices).toEqual([
      { serverId: one.serverId, requestId: 'a', method: 'notifications/progress', params: { progress: 1 } },
    ]);
  });
});
