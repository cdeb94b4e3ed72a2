/**
 * `McpHttpBridge` (`@acp-kit/sdk/mcp-http`): an MCP server an acp-kit client provides over ACP
 * (`type: "acp"`) reached by an MCP client that only takes URLs — the official MCP SDK's client
 * over Streamable HTTP — through the agent's bridge on 127.0.0.1: tools listed, a tool called with
 * its progress streamed back, an MCP error. Then its bounds: requests in flight (429, -33000), body
 * size (413, -33000), token (401), Host (403), batches (400), and a reader that leaves cancels the
 * request on the ACP side.
 */
import { request as httpRequest } from 'node:http';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerHttp } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import type { McpServerHandler } from '../../src/mcp-over-acp/index.js';
import { McpHttpBridge, type McpHttpBridgeOptions } from '../../src/mcp-over-acp/http-bridge.js';
import { wire } from './harness.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What the ACP client's server saw: calls, and the signals of requests that were cancelled. */
interface Served {
  calls: string[];
  cancelled: string[];
  /** Releases every held `slow` call. */
  release(): void;
  /** Resolves once a `slow` call is being held. */
  held: Promise<void>;
}

/** The MCP server the ACP client provides: `word_count` (with progress) and `slow` (held until released). */
function wordServer(): { handler: McpServerHandler; served: Served } {
  let releaseAll: () => void = () => undefined;
  const releases = new Promise<void>((resolve) => {
    releaseAll = resolve;
  });
  let markHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  const served: Served = { calls: [], cancelled: [], release: () => releaseAll(), held };
  const handler: McpServerHandler = async ({ method, params, notify, signal, requestId }) => {
    if (method === 'tools/list') {
      return {
        result: {
          tools: [
            {
              name: 'word_count',
              description: 'Counts words',
              inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
            },
            { name: 'slow', inputSchema: { type: 'object' } },
          ],
        },
      };
    }
    if (method !== 'tools/call') return { error: { code: -32601, message: `Method not found: ${method}` } };
    served.calls.push(String(params?.name));
    if (params?.name === 'slow') {
      signal.addEventListener('abort', () => served.cancelled.push(requestId), { once: true });
      markHeld();
      await Promise.race([releases, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
      return { result: { content: [{ type: 'text', text: 'slow done' }] } };
    }
    if (params?.name === 'flood') {
      // Progress notifications of 1 KiB each until cancelled (at most 4 096: 4 MiB).
      signal.addEventListener('abort', () => served.cancelled.push(requestId), { once: true });
      const token =
        (params._meta as { progressToken?: string | number } | undefined)?.progressToken ?? 'flood';
      for (let i = 0; i < 4096 && !signal.aborted; i++)
        await notify('notifications/progress', {
          progressToken: token,
          progress: i,
          message: 'x'.repeat(1024),
        });
      return { result: { content: [{ type: 'text', text: 'flood done' }] } };
    }
    if (params?.name !== 'word_count')
      return { error: { code: -32602, message: `Unknown tool: ${String(params?.name)}` } };
    const token = (params._meta as { progressToken?: string | number } | undefined)?.progressToken;
    if (token !== undefined)
      await notify('notifications/progress', { progressToken: token, progress: 1, total: 2 });
    const text = String((params.arguments as { text?: unknown } | undefined)?.text ?? '');
    return {
      result: { content: [{ type: 'text', text: `${text.split(/\s+/).filter(Boolean).length} words` }] },
    };
  };
  return { handler, served };
}

/**
 * An agent whose prompt turns the client's acp server into an http one through the bridge and
 * hands it to the test; the turn ends when the test is done.
 */
async function bridged(options: McpHttpBridgeOptions = {}) {
  let reach!: (declaration: McpServerHttp) => void;
  const reached = new Promise<McpServerHttp>((resolve) => {
    reach = resolve;
  });
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let bridge: McpHttpBridge | undefined;
  const agent = new Agent({
    info: { name: 'url-only-agent', version: '0.0.0' },
    unstable: true,
    mcpOverAcp: { info: { name: 'url-only-agent', version: '0.0.0' } },
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      bridge ??= new McpHttpBridge(agent.mcp!, options);
      const [declaration] = await bridge.adaptServers(client, agent.mcp!.servers(session.id, client));
      reach(declaration as McpServerHttp);
      await finished;
      await session.idle('end_turn');
    },
  });
  const { client } = wire(agent);
  await client.initialize();
  const { handler, served } = wordServer();
  const registration = client.mcp.register({ name: 'words', handler });
  const sessionId = await client.newSession('/tmp/bridge', [registration.declaration]);
  const turn = client.submit(sessionId, [{ type: 'text', text: 'go' }]).turnEnd;
  const declaration = await reached;
  cleanups.push(async () => {
    served.release();
    finish();
    await turn;
    await bridge?.close();
  });
  const authorization = (declaration.headers ?? []).find((h) => h.name === 'Authorization')!.value;
  return { declaration, authorization, served };
}

const post = (url: string, headers: Record<string, string>, body: string, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
    ...(signal ? { signal } : {}),
  });

const call = (id: number, name: string, meta?: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) },
  });

describe('McpHttpBridge', { timeout: 15_000 }, () => {
  it('lets the official MCP SDK client over Streamable HTTP list and call a tool the ACP client serves, with its progress', async () => {
    const { declaration, authorization, served } = await bridged();
    expect(declaration).toMatchObject({ type: 'http', name: 'words' });
    expect(declaration.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/[\w-]+$/);
    expect(declaration.url).not.toContain(authorization.slice(7));
    const mcp = new McpClient({ name: 'url-only', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(declaration.url), {
      requestInit: { headers: { Authorization: authorization } },
    });
    await mcp.connect(transport);
    cleanups.push(() => mcp.close());
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(['word_count', 'slow']);
    const progress: number[] = [];
    const result = await mcp.callTool(
      { name: 'word_count', arguments: { text: 'one two three' } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: '3 words' }]);
    expect(progress).toEqual([1]);
    const unknown = await mcp.callTool({ name: 'nope', arguments: {} }).catch((error: unknown) => error);
    expect(String(unknown)).toMatch(/Unknown tool: nope/);
    expect(served.calls).toEqual(['word_count', 'nope']);
  });

  it('answers a request past maxActiveRequests 429 with -33000 while one is in flight, and serves again once it ends', async () => {
    const { declaration, authorization, served } = await bridged({ maxActiveRequests: 1 });
    const auth = { Authorization: authorization };
    const first = post(declaration.url, auth, call(1, 'slow'));
    await served.held;
    const refused = await post(declaration.url, auth, call(2, 'word_count'));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ id: null, error: { code: -33000 } });
    served.release();
    const answered = await first;
    expect(await answered.json()).toMatchObject({ id: 1, result: { content: [{ text: 'slow done' }] } });
    const again = await post(declaration.url, auth, call(3, 'word_count'));
    expect(again.status).toBe(200);
    expect(served.calls).toEqual(['slow', 'word_count']);
  });

  it('answers a body over maxRequestBodyBytes 413 with -33000 before the server sees it', async () => {
    const { declaration, authorization, served } = await bridged({ maxRequestBodyBytes: 512 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'word_count', arguments: { text: 'word '.repeat(200) } },
    });
    const refused = await post(declaration.url, { Authorization: authorization }, big);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ error: { code: -33000 } });
    expect(served.calls).toEqual([]);
  });

  it('refuses a wrong token 401, a foreign Host 403, a batch 400 and a GET 405', async () => {
    const { declaration, authorization, served } = await bridged();
    const wrong = await post(declaration.url, { Authorization: 'Bearer nope' }, call(1, 'word_count'));
    expect(wrong.status).toBe(401);
    const url = new URL(declaration.url);
    const foreignHost = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            Host: `evil.example:${url.port}`,
            Authorization: authorization,
            'Content-Type': 'application/json',
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(call(1, 'word_count'));
    });
    expect(foreignHost).toBe(403);
    const batch = await post(declaration.url, { Authorization: authorization }, `[${call(1, 'word_count')}]`);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    const get = await fetch(declaration.url, {
      headers: { Authorization: authorization, Accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
    expect(served.calls).toEqual([]);
  });

  it('cancels the request on the ACP side when its HTTP reader goes away', async () => {
    const { declaration, authorization, served } = await bridged();
    const reader = new AbortController();
    const pending = post(
      declaration.url,
      { Authorization: authorization },
      call(1, 'slow'),
      reader.signal,
    ).catch((error: unknown) => error);
    await served.held;
    reader.abort();
    await pending;
    await expect.poll(() => served.cancelled.length, { timeout: 5000 }).toBe(1);
  });
  it('cancels the request a notifications/cancelled names, on the ACP side, and answers the notification 202', async () => {
    const { declaration, authorization, served } = await bridged();
    const auth = { Authorization: authorization };
    const pending = post(declaration.url, auth, call(7, 'slow')).catch((error: unknown) => error);
    await served.held;
    const cancel = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'the user gave up' },
    });
    const notified = await post(declaration.url, auth, cancel);
    expect(notified.status).toBe(202);
    await expect.poll(() => served.cancelled.length, { timeout: 5000 }).toBe(1);
    await pending;
  });

  it('cancels a streamed answer its reader leaves unread past maxBufferedResponseBytes, and serves the next request', async () => {
    const { declaration, authorization, served } = await bridged({ maxBufferedResponseBytes: 64 * 1024 });
    const url = new URL(declaration.url);
    // A reader that asks for a stream (progress) and then never reads a byte of the response.
    const request = httpRequest({
      host: '127.0.0.1',
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        Authorization: authorization,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
    });
    request.on('response', (response) => response.pause());
    request.on('error', () => undefined);
    request.end(call(1, 'flood', { progressToken: 'p' }));
    cleanups.push(() => {
      request.destroy();
    });
    await expect.poll(() => served.cancelled.length, { timeout: 10_000 }).toBe(1);
    const again = await post(declaration.url, { Authorization: authorization }, call(2, 'word_count'));
    expect(again.status).toBe(200);
    expect(served.calls).toEqual(['flood', 'word_count']);
  });

  it('refuses a server past maxServers with an error that names the bound, keeping the ones it serves', async () => {
    const agent = new Agent({
      info: { name: 'url-only-agent', version: '0.0.0' },
      unstable: true,
      mcpOverAcp: { info: { name: 'url-only-agent', version: '0.0.0' } },
      async onPrompt(prompt, { session, client }) {
        await prompt.insert();
        const bridge = new McpHttpBridge(agent.mcp!, { maxServers: 1 });
        cleanups.push(() => bridge.close());
        const servers = agent.mcp!.servers(session.id, client);
        const [first] = await bridge.adaptServers(client, servers.slice(0, 1));
        outcome.first = first as McpServerHttp;
        outcome.second = await bridge.adaptServers(client, servers.slice(1)).then(
          () => 'served',
          (error: unknown) => String(error),
        );
        await session.idle('end_turn');
      },
    });
    const outcome: { first?: McpServerHttp; second?: string } = {};
    const { client } = wire(agent);
    await client.initialize();
    const one = wordServer();
    const two = wordServer();
    const sessionId = await client.newSession('/tmp/bridge', [
      client.mcp.register({ name: 'one', handler: one.handler }).declaration,
      client.mcp.register({ name: 'two', handler: two.handler }).declaration,
    ]);
    await client.submit(sessionId, [{ type: 'text', text: 'go' }]).turnEnd;
    expect(outcome.second).toMatch(/serves 1 servers already \(maxServers\)/);
    const authorization = (outcome.first!.headers ?? []).find((h) => h.name === 'Authorization')!.value;
    const answered = await post(outcome.first!.url, { Authorization: authorization }, call(1, 'word_count'));
    expect(answered.status).toBe(200);
    expect(one.served.calls).toEqual(['word_count']);
  });
});
