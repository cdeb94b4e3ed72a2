/**
 * Our `connectHttp` (Streamable HTTP) and `connectWebSocket`, each under an unchanged `Client`:
 * against our own `listenAcp` hosting our `Agent`, and against the official SDK's `AcpServer`
 * (`createNodeHttpHandler`, `createNodeWebSocketUpgradeHandler`) hosting an official-SDK agent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
} from '@agentclientprotocol/sdk/experimental/node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection, ConversationStore } from '../../src/client/index.js';
import { Connection, type Transport } from '../../src/rpc/index.js';
import {
  type AcpTransportServer,
  connectHttp,
  connectWebSocket,
  HttpStatusError,
  listenAcp,
  MemoryCookieStore,
} from '../../src/transports/index.js';
import { officialRemoteAgent } from '../interop/fixtures/official-remote-agent.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function clientOver(transport: Transport, store = new ConversationStore()): Client {
  const client = new Client(new Connection(transport) as ClientConnection, {
    info: { name: 'acp-kit-remote', version: '0.0.0' },
    store,
    onPermission: (request) => ({
      outcome: {
        outcome: 'selected',
        optionId: request.options.find((o) => o.kind === 'allow_once')!.optionId,
      },
    }),
  });
  cleanups.push(() => client.close?.());
  return client;
}

function turnsDone(store: ConversationStore, sessionId: string, turns: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      if (store.snapshot(sessionId).state.completedTurns < turns) return false;
      unsubscribe();
      resolve();
      return true;
    };
    const unsubscribe = store.subscribe(() => void check());
    check();
  });
}

const text = (snapshot: ReturnType<ConversationStore['snapshot']>): string[] =>
  snapshot.messages.map((m) => `${m.kind}:${m.content.map((c) => ('text' in c ? c.text : '')).join('')}`);

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

async function ours(): Promise<AcpTransportServer> {
  const agent = permissionAgent();
  const server = await listenAcp({
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    http: { sessionExists: async (id) => (await agent.log.getSession(id)) !== undefined },
  });
  cleanups.push(() => server.close());
  return server;
}

async function official(): Promise<{ url: string; webSocketUrl: string }> {
  const acp = new AcpServer({ agent: officialRemoteAgent() as never });
  const wss = new WebSocketServer({ noServer: true });
  const server: Server = createServer(createNodeHttpHandler(acp));
  server.on('upgrade', createNodeWebSocketUpgradeHandler(acp, wss as never));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    await acp.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    wss.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/acp`, webSocketUrl: `ws://127.0.0.1:${port}/acp` };
}

type Profile = 'http' | 'websocket';
const connect = (
  profile: Profile,
  urls: { url: string; webSocketUrl: string },
  token?: string,
): Promise<Transport> =>
  profile === 'http'
    ? connectHttp(urls.url, token === undefined ? {} : { token })
    : connectWebSocket(urls.webSocketUrl, token === undefined ? {} : { token });

describe.each<Profile>(['http', 'websocket'])('our Client over %s', (profile) => {
  it('against listenAcp: a prompt with its receipt and a permission, then a second client resumes with replay', async () => {
    const server = await ours();
    const urls = { url: server.url, webSocketUrl: server.webSocketUrl };
    const first = clientOver(await connect(profile, urls, server.token));
    await first.initialize();
    const sessionId = await first.newSession('/repo');
    const done = turnsDone(first.store, sessionId, 1);
    const messageId = await first.prompt(sessionId, [{ type: 'text', text: 'write it' }]);
    await done;
    expect(text(first.store.snapshot(sessionId))).toEqual([
      'user_message:write it',
      'agent_message:chose allow',
    ]);
    expect(first.store.snapshot(sessionId).messages[0]).toMatchObject({ messageId });

    const second = clientOver(await connect(profile, urls, server.token));
    await second.initialize();
    const page = await second.listSessions();
    expect(page.sessions.map((s) => s.sessionId)).toContain(sessionId);
    await second.resume(sessionId, { cwd: '/repo', replay: true });
    expect(text(second.store.snapshot(sessionId))).toEqual([
      'user_message:write it',
      'agent_message:chose allow',
    ]);
  });

  it('against the official AcpServer hosting an official-SDK agent: prompt, permission, list, resume with replay', async () => {
    const urls = await official();
    const first = clientOver(await connect(profile, urls));
    await first.initialize();
    const sessionId = await first.newSession('/repo');
    const done = turnsDone(first.store, sessionId, 1);
    expect(await first.prompt(sessionId, [{ type: 'text', text: 'go' }])).toBe('user-1');
    await done;
    expect(text(first.store.snapshot(sessionId))).toEqual(['user_message:go', 'agent_message:chose allow']);

    const second = clientOver(await connect(profile, urls));
    await second.initialize();
    expect((await second.listSessions()).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    await second.resume(sessionId, { cwd: '/repo', replay: true });
    expect(text(second.store.snapshot(sessionId))).toEqual(['user_message:go', 'agent_message:chose allow']);
  });
});

describe('connectHttp with several sessions on one connection', () => {
  it('opens a stream per session (Acp-Session-Id) and gets each session’s turn there, against the official AcpServer', async () => {
    const urls = await official();
    const streams: (string | null)[] = [];
    const recording: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if ((init?.method ?? 'GET') === 'GET') streams.push(headers.get('acp-session-id'));
      return fetch(input, init);
    };
    const client = clientOver(await connectHttp(urls.url, { fetch: recording }));
    await client.initialize();
    const first = await client.newSession('/repo');
    const second = await client.newSession('/repo');
    expect(second).not.toBe(first);
    // The official server sends a session's messages on that session's stream only, so both turns
    // (each with its permission round trip) end only if each stream was opened with its own header.
    const done = Promise.all([turnsDone(client.store, first, 1), turnsDone(client.store, second, 1)]);
    await Promise.all([
      client.prompt(first, [{ type: 'text', text: 'one' }]),
      client.prompt(second, [{ type: 'text', text: 'two' }]),
    ]);
    await done;
    expect(text(client.store.snapshot(first))).toEqual(['user_message:one', 'agent_message:chose allow']);
    expect(text(client.store.snapshot(second))).toEqual(['user_message:two', 'agent_message:chose allow']);
    // The connection stream (no session header), then one stream per session.
    expect(streams).toEqual([null, first, second]);
  });
});

describe('connectHttp headers', () => {
  it('sends Acp-Protocol-Version with the negotiated version on every request after initialize', async () => {
    const server = await ours();
    const seen: { method: string; version: string | null }[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push({
        method: init?.method ?? 'GET',
        version: new Headers(init?.headers).get('acp-protocol-version'),
      });
      return fetch(input, init);
    };
    const client = clientOver(await connectHttp(server.url, { token: server.token!, fetch: recording }));
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const done = turnsDone(client.store, sessionId, 1);
    await client.prompt(sessionId, [{ type: 'text', text: 'write it' }]);
    await done;
    expect(seen[0]).toEqual({ method: 'POST', version: null });
    const later = seen.slice(1);
    // The connection stream, session/new, the session stream, the prompt and the permission answer.
    expect(later.length).toBeGreaterThanOrEqual(5);
    expect(later.filter((request) => request.version !== '2')).toEqual([]);
  });
});

describe('connectHttp errors', () => {
  it('fails initialize with an HttpStatusError naming 401 for a wrong token', async () => {
    const server = await ours();
    const client = clientOver(await connectHttp(server.url, { token: 'wrong-token-0123456789' }));
    const failure = await client.initialize().catch((error: unknown) => error);
    expect(String(failure)).toContain('HTTP 401');
  });

  it('keeps the server’s affinity cookie and returns it on every later request of the connection, DELETE included', async () => {
    const server = await ours();
    const cookies = new MemoryCookieStore();
    const sent: { method: string; cookie: string | null }[] = [];
    const recording: typeof fetch = (input, init) => {
      sent.push({ method: init?.method ?? 'GET', cookie: new Headers(init?.headers).get('cookie') });
      return fetch(input, init);
    };
    const client = clientOver(
      await connectHttp(server.url, { token: server.token!, cookies, fetch: recording }),
    );
    await client.initialize();
    const cookie = cookies.header();
    expect(cookie).toMatch(/^acp_affinity=[A-Za-z0-9_-]+$/);
    await client.newSession('/repo');
    client.close();
    await vi.waitFor(() => expect(sent.at(-1)?.method).toBe('DELETE'), { timeout: 10_000 });
    expect(sent[0]).toEqual({ method: 'POST', cookie: null });
    // The connection stream, session/new, the session stream, and the DELETE.
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(sent.slice(1).filter((request) => request.cookie !== cookie)).toEqual([]);
  });

  it('refuses to send anything but initialize first, without a request reaching the server', async () => {
    const server = await ours();
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const transport = await connectHttp(server.url, { token: server.token!, fetch: counting });
    const first = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } });
    await expect(transport.writer.write(first)).rejects.toThrow(
      'ACP over HTTP: the first message must be the initialize request',
    );
    expect(requests).toBe(0);
  });

  it('HttpStatusError carries the status and the reason', () => {
    const error = new HttpStatusError('POST session/prompt', 404, 'Unknown Acp-Connection-Id');
    expect(error.message).toBe(
      'ACP over HTTP: POST session/prompt answered HTTP 404: Unknown Acp-Connection-Id',
    );
    expect(error.status).toBe(404);
  });
});
