/**
 * `createAcpHandler` mounted in servers we do not own — plain `node:http`, Express (behind its own
 * middleware) and Hono on `@hono/node-server` (the fetch-style handler) — and driven by the
 * official SDK's HTTP and WebSocket clients and by acp-kit's: a prompted turn with a permission
 * round trip each time, and the token, Origin and connection caps answered as `listenAcp` answers
 * them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import {
  type ClientContext,
  client as officialClient,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { serve as serveHono } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection, ConversationStore } from '../../src/client/index.js';
import { Connection, type Transport } from '../../src/rpc/index.js';
import {
  type AcpHandler,
  type AcpHandlerOptions,
  connectHttp,
  connectWebSocket,
  createAcpHandler,
} from '../../src/transports/index.js';
import { readSseData } from '../../src/transports/sse-parser.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function permissionAgent(): Agent {
  return new Agent({
    info: { name: 'acp-kit-test-agent', version: '0.0.0' },
    replay: 'as-retained',
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      await session.running();
      const answer = await session.requestPermission(
        { title: 'write file', options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] },
        client,
      );
      const reply = await session.agentMessage();
      await reply.chunk({
        type: 'text',
        text: `chose ${answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'none'}`,
      });
      await session.idle('end_turn');
    },
  });
}

type Mount = 'node:http' | 'express' | 'hono';

interface Mounted {
  acp: AcpHandler;
  url: string;
  webSocketUrl: string;
  /** Requests the host's own middleware saw (Express), to show the handler sits behind it. */
  seen: string[];
}

async function listening(server: Server): Promise<number> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

async function mount(kind: Mount, options: Partial<AcpHandlerOptions> = {}): Promise<Mounted> {
  const agent = permissionAgent();
  const acp = createAcpHandler({
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    ...options,
  });
  const seen: string[] = [];
  let server: Server;
  if (kind === 'node:http') {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      if (request.url?.split('?')[0] === '/acp') return acp.node(request, response);
      response.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
  } else if (kind === 'express') {
    const app = express();
    app.use((request, _response, next) => {
      seen.push(`${request.method} ${request.path}`);
      next();
    });
    app.all('/acp', (request, response) => acp.node(request, response));
    server = app.listen(0, '127.0.0.1');
  } else {
    const app = new Hono<{ Bindings: { incoming: IncomingMessage } }>();
    app.all('/acp', (c) => acp.fetch(c.req.raw, { remoteAddress: c.env.incoming.socket.remoteAddress }));
    server = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  }
  server.on('upgrade', (request, socket, head) => {
    if (request.url?.split('?')[0] === '/acp') acp.upgrade(request, socket, head);
    else socket.destroy();
  });
  const port = await listening(server);
  cleanups.push(async () => {
    await acp.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { acp, url: `http://127.0.0.1:${port}/acp`, webSocketUrl: `ws://127.0.0.1:${port}/acp`, seen };
}

type Profile = 'http' | 'websocket';

function officialTurn(mounted: Mounted, profile: Profile): Promise<string> {
  const headers = { Authorization: `Bearer ${mounted.acp.token}` };
  const stream =
    profile === 'http'
      ? createHttpStream(mounted.url, { headers })
      : createWebSocketStream(mounted.webSocketUrl, { headers, WebSocket: WebSocket as never });
  const updates: UpdateSessionNotification[] = [];
  const app = officialClient({ name: 'interop' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async () => ({
      outcome: { outcome: 'selected', optionId: 'allow' },
    }));
  return app.connectWith(stream, async (ctx: ClientContext) => {
    await ctx.request('initialize', { protocolVersion: 2, info: { name: 'official', version: '2.4.0' } });
    const { sessionId } = await ctx.request('session/new', { cwd: '/repo' });
    await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    await vi.waitFor(() => expect(updates.at(-1)?.update).toMatchObject({ state: 'idle' }), {
      timeout: 10_000,
    });
    return updates
      .flatMap((u) => (u.update.sessionUpdate === 'agent_message_chunk' ? [JSON.stringify(u.update)] : []))
      .join('');
  });
}

async function oursTurn(mounted: Mounted, profile: Profile): Promise<string[]> {
  const token = mounted.acp.token!;
  const transport: Transport =
    profile === 'http'
      ? await connectHttp(mounted.url, { token })
      : await connectWebSocket(mounted.webSocketUrl, { token });
  const store = new ConversationStore();
  const client = new Client(new Connection(transport) as ClientConnection, {
    info: { name: 'acp-kit-remote', version: '0.0.0' },
    store,
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }),
  });
  cleanups.push(() => client.close?.());
  await client.initialize();
  const sessionId = await client.newSession('/repo');
  const done = new Promise<void>((resolve) => {
    const check = (): void => {
      if (store.snapshot(sessionId).state.completedTurns >= 1) resolve();
    };
    store.subscribe(check);
    check();
  });
  await client.prompt(sessionId, [{ type: 'text', text: 'write it' }]);
  await done;
  return store
    .snapshot(sessionId)
    .messages.map((m) => `${m.kind}:${m.content.map((c) => ('text' in c ? c.text : '')).join('')}`);
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: 2, info: { name: 'raw', version: '0' } },
});

const post = (url: string, headers: Record<string, string>, body = initialize): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });

describe.each<Mount>(['node:http', 'express', 'hono'])('createAcpHandler mounted in %s', (kind) => {
  it.each<Profile>(['http', 'websocket'])(
    'serves the official SDK %s client a prompt with a permission round trip',
    async (profile) => {
      const mounted = await mount(kind);
      expect(await officialTurn(mounted, profile)).toContain('chose allow');
      if (kind === 'express' && profile === 'http') expect(mounted.seen).toContain('POST /acp');
    },
  );

  it.each<Profile>(['http', 'websocket'])(
    'serves acp-kit’s %s client a prompt with a permission round trip',
    async (profile) => {
      const mounted = await mount(kind);
      expect(await oursTurn(mounted, profile)).toEqual([
        'user_message:write it',
        'agent_message:chose allow',
      ]);
      expect(mounted.acp.openConnections).toBe(1);
    },
  );

  it('refuses a wrong token 401, a foreign Origin 403, and a second connection from one address 429', async () => {
    const refusals: number[] = [];
    const mounted = await mount(kind, {
      allowedOrigins: ['https://app.example'],
      limits: { maxConnectionsPerAddress: 1 },
      onRefused: (refusal) => refusals.push(refusal.status),
    });
    const auth = { Authorization: `Bearer ${mounted.acp.token}` };
    const wrong = await post(mounted.url, { Authorization: 'Bearer wrong-token-wrong-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="acp"');
    const foreign = await post(mounted.url, { ...auth, Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const first = await post(mounted.url, { ...auth, Origin: 'https://app.example' });
    expect(first.status).toBe(200);
    expect(first.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(first.headers.get('acp-connection-id')).toMatch(/^[\w-]{43}$/);
    expect(first.headers.get('set-cookie')).toMatch(/^acp_affinity=/);
    expect(await first.json()).toMatchObject({ id: 1, result: { protocolVersion: 2 } });
    const second = await post(mounted.url, auth);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).not.toBeNull();
    expect(refusals).toEqual([401, 403, 429]);
  });

  it('streams a connection’s messages over a GET, and takes the stream back when its reader leaves', async () => {
    const mounted = await mount(kind);
    const auth = { Authorization: `Bearer ${mounted.acp.token}` };
    const opened = await post(mounted.url, auth);
    const connection = opened.headers.get('acp-connection-id')!;
    const headers = { ...auth, 'Acp-Connection-Id': connection, Accept: 'text/event-stream' };
    const reader = new AbortController();
    const stream = await fetch(mounted.url, { headers, signal: reader.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const events = readSseData(stream.body!, 1 << 20)[Symbol.asyncIterator]();
    const newSession = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/new',
      params: { cwd: '/repo' },
    });
    expect((await post(mounted.url, { ...auth, 'Acp-Connection-Id': connection }, newSession)).status).toBe(
      202,
    );
    const answer = JSON.parse((await events.next()).value as string);
    expect(answer).toMatchObject({ id: 2, result: { sessionId: expect.any(String) } });
    const busy = await fetch(mounted.url, { headers });
    expect(busy.status).toBe(409);
    reader.abort();
    // Once the server notices the reader left, the same stream can be opened again (409 before).
    await vi.waitFor(
      async () => {
        const again = await fetch(mounted.url, { headers, signal: AbortSignal.timeout(2000) });
        expect(again.status).toBe(200);
        await again.body?.cancel();
      },
      { timeout: 5000, interval: 50 },
    );
  });
});

describe('createAcpHandler settings', () => {
  it('refuses noAuth unless told the loopback interface the server listens on', () => {
    const onConnection = () => undefined;
    expect(() => createAcpHandler({ noAuth: true, onConnection })).toThrow(/noAuth needs host/);
    expect(() => createAcpHandler({ noAuth: true, host: '0.0.0.0', onConnection })).toThrow(/loopback only/);
    expect(createAcpHandler({ noAuth: true, host: '127.0.0.1', onConnection }).token).toBeUndefined();
  });

  it('answers a body over maxMessageBytes 413 with a JSON-RPC error through the fetch handler', async () => {
    const acp = createAcpHandler({ maxMessageBytes: 1024, onConnection: () => undefined });
    cleanups.push(() => acp.close());
    const response = await acp.fetch(
      new Request('http://127.0.0.1/acp', {
        method: 'POST',
        headers: { Authorization: `Bearer ${acp.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { pad: 'x'.repeat(2000) },
        }),
      }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: -32600, data: { pointer: '' } } });
  });

  it('cuts off a connection whose fetch-handler stream is not read past maxStreamBufferBytes, and keeps serving others', async () => {
    const agent = new Agent({
      info: { name: 'flooding-agent', version: '0.0.0' },
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        for (let i = 0; i < 64; i++) await reply.chunk({ type: 'text', text: 'x'.repeat(1024) });
        await session.idle('end_turn');
      },
    });
    const acp = createAcpHandler({
      http: { maxStreamBufferBytes: 16 * 1024 },
      onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    });
    cleanups.push(() => acp.close());
    const url = 'http://127.0.0.1/acp';
    const auth = { Authorization: `Bearer ${acp.token}` };
    const send = (body: string, headers: Record<string, string> = {}) =>
      acp.fetch(
        new Request(url, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json', ...headers },
          body,
        }),
      );
    const connectionId = (await send(initialize)).headers.get('acp-connection-id')!;
    const own = { 'Acp-Connection-Id': connectionId };
    const main = await acp.fetch(
      new Request(url, { headers: { ...auth, ...own, Accept: 'text/event-stream' } }),
    );
    const mainEvents = readSseData(main.body!, 1 << 20)[Symbol.asyncIterator]();
    await send(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/repo' } }),
      own,
    );
    const { sessionId } = JSON.parse((await mainEvents.next()).value as string).result as {
      sessionId: string;
    };
    // The session's stream is opened and never read: what the agent sends for it stays queued in the body.
    const stalled = await acp.fetch(
      new Request(url, {
        headers: { ...auth, ...own, 'Acp-Session-Id': sessionId, Accept: 'text/event-stream' },
      }),
    );
    expect(stalled.status).toBe(200);
    const prompt = (id: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'session/prompt',
        params: { sessionId, prompt: [{ type: 'text', text: 'flood' }] },
      });
    expect((await send(prompt(3), { ...own, 'Acp-Session-Id': sessionId })).status).toBe(202);
    await vi.waitFor(
      async () => expect((await send(prompt(4), { ...own, 'Acp-Session-Id': sessionId })).status).toBe(404),
      { timeout: 5000, interval: 20 },
    );
    expect(acp.openConnections).toBe(0);
    // The handler serves a new connection meanwhile.
    expect((await send(initialize)).status).toBe(200);
  });

  it('takes a stream back when the reader cancels the fetch handler’s response body', async () => {
    const agent = permissionAgent();
    const acp = createAcpHandler({
      onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    });
    cleanups.push(() => acp.close());
    const url = 'http://127.0.0.1/acp';
    const auth = { Authorization: `Bearer ${acp.token}` };
    const opened = await acp.fetch(
      new Request(url, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: initialize,
      }),
    );
    const headers = {
      ...auth,
      'Acp-Connection-Id': opened.headers.get('acp-connection-id')!,
      Accept: 'text/event-stream',
    };
    const first = await acp.fetch(new Request(url, { headers }));
    expect(first.status).toBe(200);
    expect((await acp.fetch(new Request(url, { headers }))).status).toBe(409);
    await first.body!.cancel();
    const again = await acp.fetch(new Request(url, { headers }));
    expect(again.status).toBe(200);
    await again.body!.cancel();
  });
});
