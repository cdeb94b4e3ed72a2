/**
 * The `/acp` endpoint's per-peer budgets (issue 40): sockets that never present the token are
 * capped per address, wrong tokens are throttled per address, a notification naming a session its
 * connection does not use is 404, an `initialize` abandoned before its answer ends its connection
 * at once, a WebSocket peer that stopped reading is closed with 1008 at its bound, and a connection
 * whose reader is paused answers POSTs 503. Real sockets on 127.0.0.1; the flooder uses 127.0.0.2.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { MessageReaderListener, Transport } from '../../src/rpc/index.js';
import { type AcpServerOptions, type AcpTransportServer, listenAcp } from '../../src/transports/index.js';

let server: AcpTransportServer | undefined;
const sockets: Socket[] = [];
const clients: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const client of clients.splice(0)) client.terminate();
  await server?.close();
  server = undefined;
});

/** What each connection's transport saw, in order of connections. */
interface Seen {
  transport: Transport;
  closed: boolean;
}

/** An endpoint whose connections answer `initialize`, echo requests, and record their transports. */
async function serve(options: Partial<AcpServerOptions> = {}): Promise<Seen[]> {
  const seen: Seen[] = [];
  server = await listenAcp({
    onConnection: (transport) => {
      const entry: Seen = { transport, closed: false };
      seen.push(entry);
      const listener: MessageReaderListener = {
        onMessage: (text) => {
          const message = JSON.parse(text) as { id?: unknown; method?: string; params?: unknown };
          if (message.id === undefined || message.method === undefined) return;
          const result =
            message.method === 'initialize'
              ? { protocolVersion: 2, info: { name: 'echo', version: '0' }, capabilities: {} }
              : { echo: message.params ?? null };
          void transport.writer
            .write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }))
            .catch(() => {});
        },
        onFrameError: () => {},
        onClose: () => {
          entry.closed = true;
        },
      };
      transport.reader.listen(listener);
    },
    ...options,
  });
  return seen;
}

const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 2 } };

function post(
  body: unknown,
  headers: Record<string, string> = {},
  token = server!.token!,
): Promise<Response> {
  return fetch(server!.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function initialize(): Promise<string> {
  const response = await post(INITIALIZE);
  expect(response.status).toBe(200);
  return response.headers.get('acp-connection-id')!;
}

/** A WebSocket with the token, open, its messages collected. */
async function webSocket(): Promise<{ ws: WebSocket; messages: unknown[] }> {
  const ws = new WebSocket(server!.webSocketUrl, { headers: { Authorization: `Bearer ${server!.token}` } });
  clients.push(ws);
  const messages: unknown[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  ws.on('error', () => {});
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, messages };
}

async function echoOver(client: { ws: WebSocket; messages: unknown[] }, id: number): Promise<unknown> {
  client.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: { id } }));
  await vi.waitFor(() => expect(client.messages.some((m) => (m as { id?: unknown }).id === id)).toBe(true), {
    timeout: 5000,
  });
  return client.messages.find((m) => (m as { id?: unknown }).id === id);
}

describe('the /acp endpoint against hostile peers', () => {
  it('holds at most maxPendingPerAddress sockets that never sent a token from one address; other clients and open connections go on', async () => {
    await serve({
      limits: { maxPendingPerAddress: 4, maxPendingHandshakes: 16, handshakeTimeoutMs: 60_000 },
    });
    const before = await webSocket();
    let open = 0;
    let refused = 0;
    await Promise.all(
      Array.from(
        { length: 100 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect({ port: server!.port, host: '127.0.0.1', localAddress: '127.0.0.2' });
            sockets.push(socket);
            socket.on('error', () => {});
            // A socket over the cap is told why (503, Retry-After) and closed.
            let answer = '';
            socket.setEncoding('latin1');
            socket.on('data', (piece: string) => {
              answer += piece;
            });
            socket.once('close', () => {
              open -= 1;
              if (/^HTTP\/1\.1 503 [\s\S]*Retry-After: 1\r\n/.test(answer)) refused += 1;
              resolve();
            });
            socket.once('connect', () => {
              open += 1;
              socket.write('POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
              resolve();
            });
          }),
      ),
    );
    await vi.waitFor(() => expect(open).toBe(4), { timeout: 10_000 });
    expect(refused).toBe(96);
    expect(await echoOver(before, 1)).toMatchObject({ result: { echo: { id: 1 } } });
    const after = await webSocket();
    expect(await echoOver(after, 2)).toMatchObject({ result: { echo: { id: 2 } } });
    expect((await post(INITIALIZE)).status).toBe(200);
  });

  it('throttles wrong tokens per address: 429 with Retry-After after authFailureBurst, for the right token too', async () => {
    await serve({ limits: { authFailureBurst: 5, authFailuresPerSecond: 0.01 } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      statuses.push(
        (
          await post(
            { jsonrpc: '2.0', method: 'x' },
            { 'Acp-Connection-Id': 'made-up' },
            `wrong-token-${i}-abcdefgh`,
          )
        ).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const right = await post(INITIALIZE);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await right.text()).toMatch(/too many wrong tokens from this address/);
  });

  it('answers 404 to a notification naming a session its connection does not use, and to a request naming one the agent does not have', async () => {
    await serve({ http: { sessionExists: (id) => id === 'real' } });
    const connectionId = await initialize();
    const headers = (sessionId: string) => ({
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': sessionId,
    });
    const cancel = (sessionId: string) => ({
      jsonrpc: '2.0',
      method: 'session/cancel',
      params: { sessionId },
    });
    const resume = (sessionId: string) => ({
      jsonrpc: '2.0',
      id: 5,
      method: 'session/resume',
      params: { sessionId },
    });
    const unknown = await post(cancel('made-up'), headers('made-up'));
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toMatch(/Unknown Acp-Session-Id for this connection/);
    expect((await post(resume('made-up'), headers('made-up'))).status).toBe(404);
    // A session the agent has: the resume is taken, and the connection now uses that session.
    expect((await post(resume('real'), headers('real'))).status).toBe(202);
    expect((await post(cancel('real'), headers('real'))).status).toBe(202);
  });

  it('ends the connection as soon as the client abandons its initialize, before any answer', async () => {
    const seen: Seen[] = [];
    server = await listenAcp({
      // Never answers: the client gives up first.
      onConnection: (transport) => {
        const entry: Seen = { transport, closed: false };
        seen.push(entry);
        transport.reader.listen({
          onMessage: () => {},
          onFrameError: () => {},
          onClose: () => {
            entry.closed = true;
          },
        });
      },
      http: { idleTimeoutMs: 600_000 },
    });
    const body = JSON.stringify(INITIALIZE);
    const abandoned = httpRequest(server.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${server.token}`,
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
      },
    });
    abandoned.on('error', () => {});
    abandoned.end(body);
    await vi.waitFor(() => expect(seen.length).toBe(1), { timeout: 5000 });
    expect(seen[0]!.closed).toBe(false);
    abandoned.destroy();
    // Well before the idle timeout (10 minutes here).
    await vi.waitFor(() => expect(seen[0]!.closed).toBe(true), { timeout: 5000 });
  });

  it('closes a WebSocket whose peer stopped reading with 1008 once more than maxBufferedBytes wait', async () => {
    const seen = await serve({ maxBufferedBytes: 256 * 1024 });
    const client = await webSocket();
    let code = 0;
    let reason = '';
    const closed = new Promise<void>((resolve) =>
      client.ws.once('close', (c, r) => {
        code = c;
        reason = r.toString();
        resolve();
      }),
    );
    await echoOver(client, 1);
    client.ws.pause();
    const { writer } = seen[0]!.transport;
    const chunk = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: 'z'.repeat(64 * 1024) } });
    let refused: Error | undefined;
    // Writes are not awaited: the peer does not read, so none of them would resolve.
    for (let i = 0; i < 100_000 && refused === undefined; i += 1) {
      writer.write(chunk).catch((error: Error) => {
        refused ??= error;
      });
      // Let the socket move what it can, and a refusal arrive.
      if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(refused?.message).toMatch(/peer not reading: \d+ bytes unsent \(limit 262144\)/);
    client.ws.resume();
    await closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/peer not reading/);
  });

  it('answers POSTs 503 with Retry-After while the connection’s reader is paused, and takes them again once resumed', async () => {
    const seen = await serve();
    const connectionId = await initialize();
    const note = { jsonrpc: '2.0', method: '_note', params: {} };
    seen[0]!.transport.reader.pause!();
    const refused = await post(note, { 'Acp-Connection-Id': connectionId });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    seen[0]!.transport.reader.resume!();
    expect((await post(note, { 'Acp-Connection-Id': connectionId })).status).toBe(202);
  });
});
