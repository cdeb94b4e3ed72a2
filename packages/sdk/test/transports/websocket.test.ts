import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Connection, ErrorCodes, type Transport } from '../../src/rpc/index.js';
import {
  connectWebSocket,
  listenWebSocket,
  type WebSocketTransportServer,
} from '../../src/transports/index.js';

let server: WebSocketTransportServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An agent-like server: one Connection per client, numbered in order of arrival. */
async function startServer(
  maxMessageBytes?: number,
): Promise<{ url: string; token: string; agents: Connection[] }> {
  const agents: Connection[] = [];
  server = await listenWebSocket({
    maxMessageBytes,
    onConnection(transport: Transport) {
      const index = agents.length;
      const agent = new Connection(transport);
      agent.onRequest('whoami', () => ({ client: index }));
      agent.onRequest('echo', (params) => params);
      agents.push(agent.listen());
    },
  });
  return { url: server.url, token: server.token!, agents };
}

/** A raw ws client that collects parsed text frames, for sending bytes the SDK would never send. */
async function rawClient(
  url: string,
  token: string,
): Promise<{ socket: WebSocket; next(): Promise<Record<string, unknown>>; binaryFrames: () => number }> {
  const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
  const queue: Record<string, unknown>[] = [];
  const waiters: ((m: Record<string, unknown>) => void)[] = [];
  let binaryFrames = 0;
  socket.on('message', (data, isBinary) => {
    if (isBinary) binaryFrames += 1;
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  await new Promise((resolve) => socket.once('open', resolve));
  return {
    socket,
    binaryFrames: () => binaryFrames,
    next: () => {
      const ready = queue.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

describe('WebSocket transport', () => {
  it('serves two clients at once, each on its own connection', async () => {
    const { url, token, agents } = await startServer();
    const first = new Connection(await connectWebSocket(url, { token })).listen();
    expect(await first.sendRequest('whoami', {})).toEqual({ client: 0 });
    const second = new Connection(await connectWebSocket(url, { token })).listen();
    expect(await second.sendRequest('whoami', {})).toEqual({ client: 1 });

    const notes: string[] = [];
    const both = new Promise<void>((resolve) => {
      for (const [name, client] of [
        ['first', first],
        ['second', second],
      ] as const) {
        client.onNotification('_agent/broadcast', () => {
          notes.push(name);
          if (notes.length === 2) resolve();
        });
      }
    });
    for (const agent of agents) await agent.sendNotification('_agent/broadcast', {});
    await both;
    expect(notes.sort()).toEqual(['first', 'second']);
    first.close();
    second.close();
  });

  it('closes only the connection of the client that left', async () => {
    const { url, token, agents } = await startServer();
    const first = new Connection(await connectWebSocket(url, { token })).listen();
    const second = new Connection(await connectWebSocket(url, { token })).listen();
    await first.sendRequest('whoami', {});
    await second.sendRequest('whoami', {});
    const agentSawClose = new Promise<void>((resolve) => agents[0]!.onClose(() => resolve()));
    first.close();
    await agentSawClose;
    expect(agents[1]!.isClosed).toBe(false);
    expect(await second.sendRequest('echo', { still: 'here' })).toEqual({ still: 'here' });
    second.close();
  });

  it('reads a binary frame of UTF-8 JSON like a text frame and answers in a text frame; refuses a binary frame of invalid UTF-8 with -32700 (#24 item 10)', async () => {
    const { url, token } = await startServer();
    const raw = await rawClient(url, token);
    const request = { jsonrpc: '2.0', id: 7, method: 'echo', params: { text: 'héllo ✓' } };
    raw.socket.send(Buffer.from(`${JSON.stringify(request)}\n`, 'utf8'), { binary: true });
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 7, result: { text: 'héllo ✓' } });
    raw.socket.send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: true });
    expect(await raw.next()).toMatchObject({
      id: null,
      error: { code: ErrorCodes.ParseError, data: { reason: 'invalid-utf8' } },
    });
    raw.socket.send(Buffer.from('{}'), { binary: true });
    expect(await raw.next()).toMatchObject({ id: null, error: { code: ErrorCodes.InvalidRequest } });
    expect(raw.binaryFrames()).toBe(0);
    raw.socket.close();
  });

  it('answers malformed JSON and invalid UTF-8 with -32700 and keeps the socket', async () => {
    const { url, token } = await startServer();
    const raw = await rawClient(url, token);
    raw.socket.send('{"jsonrpc":');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: ErrorCodes.ParseError } });
    raw.socket.send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: false });
    expect(await raw.next()).toMatchObject({
      id: null,
      error: { code: ErrorCodes.ParseError, data: { reason: 'invalid-utf8' } },
    });
    raw.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { ok: true } }));
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true } });
    raw.socket.close();
  });

  it('closes a socket that sends a message over the size limit, rejecting its pending requests', async () => {
    const { url, token } = await startServer(1024);
    const client = new Connection(await connectWebSocket(url, { token })).listen();
    const error = await client.sendRequest('echo', { pad: 'x'.repeat(4096) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.ConnectionClosed });
    expect((error as Error).message).toContain('1009');
  });
});

describe('WebSocket client transport', () => {
  it('rejects when nothing listens at the address', async () => {
    const probe = await listenWebSocket({ onConnection: () => {} });
    const url = probe.url;
    await probe.close();
    await expect(connectWebSocket(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('closes the client with code 1011 when the server’s accept hook throws, and keeps serving', async () => {
    let calls = 0;
    server = await listenWebSocket({
      onConnection(transport) {
        if (++calls === 1) throw new Error('hook failed');
        const agent = new Connection(transport);
        agent.onRequest('echo', (params) => params);
        agent.listen();
      },
    });
    const unlucky = new Connection(await connectWebSocket(server.url, { token: server.token })).listen();
    const reason = await new Promise<Error>((resolve) => unlucky.onClose(resolve));
    expect(reason.message).toContain('1011');
    const lucky = new Connection(await connectWebSocket(server.url, { token: server.token })).listen();
    expect(await lucky.sendRequest('echo', { ok: 1 })).toEqual({ ok: 1 });
    lucky.close();
  });
});
