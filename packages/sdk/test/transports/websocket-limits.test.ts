import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Connection, RpcError, type Transport } from '../../src/rpc/index.js';
import {
  connectWebSocket,
  listenWebSocket,
  SESSION_LIMIT_ERROR_CODE,
  type WebSocketServerOptions,
  type WebSocketTransportServer,
} from '../../src/transports/index.js';

let server: WebSocketTransportServer | undefined;
const sockets: (WebSocket | Socket)[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) {
    if (socket instanceof WebSocket) socket.terminate();
    else socket.destroy();
  }
  await server?.close();
  server = undefined;
});

async function start(options: Partial<WebSocketServerOptions> = {}) {
  const stats = { accepted: 0, mostOpenAtOnce: 0 };
  server = await listenWebSocket({
    ...options,
    onConnection(transport: Transport) {
      stats.accepted += 1;
      stats.mostOpenAtOnce = Math.max(stats.mostOpenAtOnce, server?.openConnections ?? 0);
      const agent = new Connection(transport);
      let next = 0;
      agent.onRequest('echo', (params) => params);
      agent.onRequest('session/new', () => ({ sessionId: `sess_${++next}` }));
      agent.onRequest('session/prompt', () => ({ messageId: 'mess_1' }));
      agent.listen();
    },
  });
  return { server, stats };
}

type Outcome =
  | { open: true; socket: WebSocket }
  | { open: false; status: number; body: string; retryAfter?: string }
  | { open: false; status: 'reset'; body: string };

function handshake(url: string, token: string | undefined): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    socket.once('unexpected-response', (request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({
          open: false,
          status: response.statusCode ?? 0,
          body,
          ...(retryAfter ? { retryAfter } : {}),
        });
        request.destroy();
      });
    });
    socket.once('open', () => {
      sockets.push(socket);
      resolve({ open: true, socket });
    });
    // Dropped by the listener (over its socket budget) before any HTTP answer.
    socket.once('error', (error) => resolve({ open: false, status: 'reset', body: error.message }));
  });
}

const statusOf = (o: Outcome) => (o.open ? 'open' : o.status);

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('WebSocket server limits', () => {
  it('caps open connections in total with 503 and a reason, and frees the slot when one closes', async () => {
    const { server } = await start({ limits: { maxConnections: 3 } });
    const first = [];
    for (let i = 0; i < 3; i += 1) first.push(await handshake(server.url, server.token));
    expect(first.map(statusOf)).toEqual(['open', 'open', 'open']);
    const over = await handshake(server.url, server.token);
    expect(over).toMatchObject({ open: false, status: 503, retryAfter: '1' });
    expect(over.open ? '' : over.body).toContain('connection limit (3 open connections)');
    if (first[0]!.open) first[0]!.socket.close();
    await until(() => server.openConnections === 2);
    expect(statusOf(await handshake(server.url, server.token))).toBe('open');
  });

  it('caps open connections per address with 429', async () => {
    const { server } = await start({ limits: { maxConnectionsPerAddress: 2 } });
    const outcomes = [];
    for (let i = 0; i < 3; i += 1) outcomes.push(await handshake(server.url, server.token));
    expect(outcomes.map(statusOf)).toEqual(['open', 'open', 429]);
    expect(outcomes[2]!.open ? '' : outcomes[2]!.body).toContain(
      'too many open connections from this address',
    );
  });

  it('limits the handshake rate per address, refused attempts included, with 429 and Retry-After', async () => {
    const { server, stats } = await start({ limits: { handshakeBurst: 5, handshakesPerSecond: 0.5 } });
    const outcomes = [];
    for (let i = 0; i < 4; i += 1) outcomes.push(await handshake(server.url, 'guessing-the-token-000'));
    outcomes.push(await handshake(server.url, server.token));
    const limited = await handshake(server.url, server.token);
    expect([...outcomes, limited].map(statusOf)).toEqual([401, 401, 401, 401, 'open', 429]);
    expect(limited).toMatchObject({ retryAfter: '2' });
    expect(limited.open ? '' : limited.body).toContain('too many handshakes from this address');
    expect(stats.accepted).toBe(1);
  });

  it('caps sessions per connection with a JSON-RPC error and keeps the connection and its sessions usable', async () => {
    const { server } = await start({ limits: { maxSessionsPerConnection: 2 } });
    const client = new Connection(await connectWebSocket(server.url, { token: server.token! })).listen();
    const a = (await client.sendRequest('session/new', { cwd: '/w' })) as { sessionId: string };
    const b = (await client.sendRequest('session/new', { cwd: '/w' })) as { sessionId: string };
    const third = await client.sendRequest('session/new', { cwd: '/w' }).catch((e: unknown) => e);
    expect(third).toBeInstanceOf(RpcError);
    expect(third).toMatchObject({
      code: SESSION_LIMIT_ERROR_CODE,
      data: { limit: 'sessions-per-connection', max: 2 },
    });
    expect((third as Error).message).toContain('already holds 2 sessions');
    const other = await client
      .sendRequest('session/prompt', { sessionId: 'sess_other', prompt: [{ type: 'text', text: 'hi' }] })
      .catch((e) => e);
    expect(other).toMatchObject({ code: SESSION_LIMIT_ERROR_CODE });
    expect(
      await client.sendRequest('session/prompt', {
        sessionId: a.sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      }),
    ).toEqual({
      messageId: 'mess_1',
    });
    expect(
      await client.sendRequest('session/prompt', {
        sessionId: b.sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      }),
    ).toEqual({
      messageId: 'mess_1',
    });
    // The limit is per connection: a second connection gets its own.
    const second = new Connection(await connectWebSocket(server.url, { token: server.token! })).listen();
    expect(await second.sendRequest('session/new', { cwd: '/w' })).toMatchObject({
      sessionId: expect.any(String),
    });
    client.close();
    second.close();
  });

  it('stays bounded under a connection flood and serves a well-behaved client afterwards', async () => {
    const limits = {
      maxConnections: 8,
      maxConnectionsPerAddress: 8,
      handshakeBurst: 1000,
      maxPendingHandshakes: 8,
      // Wrong tokens here are part of the connection flood, not guessing: not throttled.
      authFailureBurst: 1000,
    };
    const { server, stats } = await start({ limits });
    const attempts = 300;
    const started = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: attempts }, (_, i) =>
        handshake(server.url, i % 3 === 0 ? undefined : server.token),
      ),
    );
    const elapsed = Date.now() - started;
    const tally = new Map<string | number, number>();
    for (const o of outcomes) tally.set(statusOf(o), (tally.get(statusOf(o)) ?? 0) + 1);
    console.log(`flood: ${attempts} handshakes in ${elapsed} ms →`, Object.fromEntries(tally));
    expect(stats.mostOpenAtOnce).toBeLessThanOrEqual(8);
    expect(server.openConnections).toBeLessThanOrEqual(8);
    expect(tally.get('open') ?? 0).toBeLessThanOrEqual(8);
    expect(tally.get(401) ?? 0).toBeGreaterThan(0);
    expect((tally.get(503) ?? 0) + (tally.get('reset') ?? 0)).toBeGreaterThan(0);
    expect([...tally.keys()].every((k) => ['open', 401, 503, 'reset'].includes(k as never))).toBe(true);
    for (const o of outcomes) if (o.open) o.socket.close();
    await until(() => server.openConnections === 0);
    const client = new Connection(await connectWebSocket(server.url, { token: server.token! })).listen();
    expect(await client.sendRequest('echo', { after: 'flood' })).toEqual({ after: 'flood' });
    client.close();
  });

  it('drops sockets that never finish their handshake, so silent connections cannot hold the listener', async () => {
    const { server } = await start({
      limits: { maxPendingHandshakes: 4, maxConnections: 4, handshakeTimeoutMs: 500 },
    });
    let closed = 0;
    for (let i = 0; i < 20; i += 1) {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.once('close', () => (closed += 1));
      socket.resume();
      sockets.push(socket);
    }
    // Every one is closed by the server: over the socket budget at once, the rest at the timeout.
    await until(() => closed === 20, 20_000);
    const client = new Connection(await connectWebSocket(server.url, { token: server.token! })).listen();
    expect(await client.sendRequest('echo', { ok: true })).toEqual({ ok: true });
    client.close();
  });
  it('applies the handshake timeout to the handshake only, not to an open connection', async () => {
    const { server } = await start({ limits: { handshakeTimeoutMs: 200 } });
    const client = new Connection(await connectWebSocket(server.url, { token: server.token! })).listen();
    await new Promise((r) => setTimeout(r, 1500));
    expect(client.isClosed).toBe(false);
    expect(await client.sendRequest('echo', { still: 'open' })).toEqual({ still: 'open' });
    client.close();
  });
});

describe('WebSocket server before authentication', () => {
  /** Sends raw bytes on a TCP socket; resolves with everything the server sent until it closed. */
  function rawExchange(port: number, payload: Buffer): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('error', () => {});
      socket.once('close', () => resolve(received));
      socket.write(payload, () => {});
    });
  }

  const upgrade = (port: number, extra = ''): string =>
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
    `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra}\r\n`;

  it('answers 401 and closes without reading the frames an unauthenticated peer pipelines after its handshake', async () => {
    const { server, stats } = await start({ maxMessageBytes: 1024 });
    const frames = Buffer.alloc(1024 * 1024, 0x41);
    const reply = await rawExchange(server.port, Buffer.concat([Buffer.from(upgrade(server.port)), frames]));
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(stats.accepted).toBe(0);
  });

  it('answers an oversized handshake with 431 before authentication', async () => {
    const { server, stats } = await start();
    const reply = await rawExchange(
      server.port,
      Buffer.from(upgrade(server.port, `X-Pad: ${'p'.repeat(64 * 1024)}\r\n`)),
    );
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(stats.accepted).toBe(0);
  });

  it('answers plain HTTP with 426 and does not serve anything else', async () => {
    const { server } = await start();
    const reply = await rawExchange(
      server.port,
      Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 426 Upgrade Required');
  });
});
