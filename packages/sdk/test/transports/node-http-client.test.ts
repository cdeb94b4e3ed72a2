/**
 * `connectHttp` from the Node entry point: initialize, a turn's POSTs, the SSE streams and the
 * closing DELETE go over `node:http` sockets (not `fetch`), still carrying the token, the negotiated
 * `Acp-Protocol-Version`, the connection's cookie and the session header, and a refused POST still
 * fails its request with the status and the server's reason. A recording proxy in front of
 * `listenAcp` sees every request as the server does.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection, ConversationStore } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { connectHttp, listenAcp, MemoryCookieStore } from '../../src/transports/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  socket: Socket;
  status?: number;
}

/** listenAcp hosting an agent that inserts and ends each turn, behind a proxy recording requests. */
async function recordedAgent(): Promise<{ url: string; token: string; seen: Seen[] }> {
  const agent = new Agent({
    info: { name: 'acp-kit-test-agent', version: '0.0.0' },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      await (await session.agentMessage()).chunk({ type: 'text', text: 'done' });
      await session.idle('end_turn');
    },
  });
  const upstream = await listenAcp({
    maxMessageBytes: 4096,
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    http: { sessionExists: async (id) => (await agent.log.getSession(id)) !== undefined },
  });
  const target = new URL(upstream.url);
  const seen: Seen[] = [];
  const proxy = createServer((incoming, outgoing) => {
    const record: Seen = { method: incoming.method!, headers: incoming.headers, socket: incoming.socket };
    seen.push(record);
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        record.status = answer.statusCode;
        outgoing.writeHead(answer.statusCode!, answer.headers);
        outgoing.flushHeaders();
        answer.pipe(outgoing);
      },
    );
    // The agent answers 413 and closes while the body still streams: the reset ends this exchange.
    forward.on('error', () => outgoing.destroy());
    incoming.on('error', () => forward.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    await upstream.close();
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  });
  const { port } = proxy.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/acp`, token: upstream.token!, seen };
}

function clientOver(client: Client): Client {
  cleanups.push(() => client.close?.());
  return client;
}

describe('connectHttp in Node', () => {
  it('sends every request over node:http, none over fetch: a turn’s POSTs on one kept-alive socket, each stream on a socket of its own', async () => {
    const { url, token, seen } = await recordedAgent();
    const fetched: string[] = [];
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      fetched.push(init?.method ?? 'GET');
      return realFetch(input, init);
    });
    const cookies = new MemoryCookieStore();
    const store = new ConversationStore();
    const client = clientOver(
      new Client(new Connection(await connectHttp(url, { token, cookies })) as ClientConnection, {
        info: { name: 'acp-kit-remote', version: '0.0.0' },
        store,
      }),
    );
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    for (let turn = 0; turn < 3; turn += 1) {
      await client.prompt(sessionId, [{ type: 'text', text: `turn ${turn}` }]);
      await vi.waitFor(() => expect(store.snapshot(sessionId).state.completedTurns).toBe(turn + 1), {
        timeout: 10_000,
      });
    }
    expect(fetched).toEqual([]);
    const gets = seen.filter((s) => s.method === 'GET');
    expect(gets).toHaveLength(2); // the connection's stream, then the session's
    expect(gets[0]!.socket).not.toBe(gets[1]!.socket);
    expect(gets.map((g) => g.headers['acp-session-id'])).toEqual([undefined, sessionId]);
    for (const get of gets) {
      expect(get.status).toBe(200);
      expect(get.headers.accept).toBe('text/event-stream');
      expect(get.headers.authorization).toBe(`Bearer ${token}`);
      expect(get.headers['acp-protocol-version']).toBe('2');
    }
    const posts = seen.filter((s) => s.method === 'POST').slice(1);
    expect(posts).toHaveLength(4); // session/new and three prompts
    expect(new Set(posts.map((p) => p.socket)).size).toBe(1);
    const cookie = cookies.header();
    expect(cookie).toMatch(/^acp_affinity=/);
    for (const get of gets) expect(get.headers.cookie).toBe(cookie);
    for (const post of posts) {
      expect(post.status).toBe(202);
      expect(post.headers.authorization).toBe(`Bearer ${token}`);
      expect(post.headers['acp-protocol-version']).toBe('2');
      expect(post.headers['acp-connection-id']).toMatch(/.{16,}/);
      expect(post.headers.cookie).toBe(cookie);
    }
    expect(posts.slice(1).map((p) => p.headers['acp-session-id'])).toEqual([sessionId, sessionId, sessionId]);

    client.close();
    await vi.waitFor(() => expect(seen.at(-1)?.method).toBe('DELETE'), { timeout: 10_000 });
    expect(seen.at(-1)!.headers.cookie).toBe(cookie);
    // The DELETE names the connection, which the server then ends (202, not 400 or 404).
    expect(seen.at(-1)!.headers['acp-connection-id']).toBe(posts[0]!.headers['acp-connection-id']);
    await vi.waitFor(() => expect(seen.at(-1)?.status).toBe(202), { timeout: 10_000 });
    expect(fetched).toEqual([]);
  });

  it('fails a refused POST with the status and the server’s reason, and the next request gets a fresh socket', async () => {
    const { url, token, seen } = await recordedAgent();
    const store = new ConversationStore();
    const client = clientOver(
      new Client(new Connection(await connectHttp(url, { token })) as ClientConnection, {
        info: { name: 'acp-kit-remote', version: '0.0.0' },
        store,
      }),
    );
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    // 413 with Connection: close — the server ends the kept-alive socket after answering.
    const failure = await client
      .prompt(sessionId, [{ type: 'text', text: 'x'.repeat(10_000) }])
      .catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/POST session\/prompt answered HTTP 413: .*4096 bytes/);
    await client.prompt(sessionId, [{ type: 'text', text: 'small' }]);
    await vi.waitFor(() => expect(store.snapshot(sessionId).state.completedTurns).toBe(1), {
      timeout: 10_000,
    });
    const posts = seen.filter((s) => s.method === 'POST');
    expect(posts.map((p) => p.status)).toEqual([200, 202, 413, 202]);
    expect(posts[3]!.socket).not.toBe(posts[2]!.socket);
  });

  it('refuses a URL it cannot parse before sending anything', async () => {
    await expect(connectHttp('not a url')).rejects.toThrow(/Invalid URL/);
  });
});
