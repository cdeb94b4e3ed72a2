import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Connection, type Transport } from '../../src/rpc/index.js';
import {
  connectWebSocket,
  generateToken,
  isLoopbackHost,
  listenWebSocket,
  type WebSocketServerOptions,
  type WebSocketTransportServer,
  WebSocketHandshakeError,
} from '../../src/transports/index.js';
import { ACP_KIT_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from '../../src/transports/websocket-protocol.js';
import { tokensMatch } from '../../src/transports/websocket-token.js';
import { selfSignedCertificate } from './self-signed.js';

let server: WebSocketTransportServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server whose every accepted client gets an `echo` handler; `accepted` counts what reached it. */
async function start(options: Partial<WebSocketServerOptions> = {}) {
  const accepted: Connection[] = [];
  const refusals: { status: number; reason: string }[] = [];
  server = await listenWebSocket({
    ...options,
    onConnection(transport: Transport) {
      const agent = new Connection(transport);
      agent.onRequest('echo', (params) => params);
      agent.onRequest('session/new', () => ({ sessionId: `sess_${accepted.length}_${Math.random()}` }));
      agent.onRequest('session/prompt', () => ({ stopReason: 'end_turn' }));
      accepted.push(agent.listen());
    },
    onRefused: (refusal) => refusals.push(refusal),
  });
  return { server, accepted, refusals };
}

type Outcome =
  | { open: true; socket: WebSocket; protocol: string }
  | { open: false; status: number; body: string };

/** One raw handshake: either the socket opens or the server answers with an HTTP status. */
function handshake(
  url: string,
  init: { headers?: Record<string, string>; protocols?: string[]; origin?: string } = {},
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, init.protocols ?? [], {
      headers: init.headers ?? {},
      ...(init.origin ? { origin: init.origin } : {}),
    });
    socket.once('unexpected-response', (request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => {
        resolve({ open: false, status: response.statusCode ?? 0, body });
        request.destroy();
      });
    });
    socket.once('open', () => resolve({ open: true, socket, protocol: socket.protocol }));
    socket.once('error', reject);
  });
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const refusedWith = (outcome: Outcome): number | 'open' => (outcome.open ? 'open' : outcome.status);

describe('WebSocket server: Origin check', () => {
  it('refuses a foreign Origin with 403 during the handshake, even with the right token, and nothing reaches the agent', async () => {
    const { server, accepted, refusals } = await start();
    const outcome = await handshake(server.url, {
      origin: 'https://evil.example',
      headers: bearer(server.token!),
    });
    expect(refusedWith(outcome)).toBe(403);
    expect(outcome.open ? '' : outcome.body).toContain('origin not allowed');
    expect(accepted).toHaveLength(0);
    expect(refusals).toEqual([expect.objectContaining({ status: 403, origin: 'https://evil.example' })]);
  });

  it('refuses the opaque origin "null" (sandboxed frames, file: pages)', async () => {
    const { server, accepted } = await start({ allowedOrigins: ['http://localhost:3000'] });
    expect(refusedWith(await handshake(server.url, { origin: 'null', headers: bearer(server.token!) }))).toBe(
      403,
    );
    expect(accepted).toHaveLength(0);
  });

  it('accepts an allow-listed origin and a client that sends no Origin at all', async () => {
    const { server, accepted } = await start({ allowedOrigins: ['http://localhost:3000'] });
    const page = await handshake(server.url, {
      origin: 'http://localhost:3000',
      headers: bearer(server.token!),
    });
    const tool = await handshake(server.url, { headers: bearer(server.token!) });
    expect([refusedWith(page), refusedWith(tool)]).toEqual(['open', 'open']);
    expect(
      refusedWith(
        await handshake(server.url, { origin: 'http://localhost:3001', headers: bearer(server.token!) }),
      ),
    ).toBe(403);
    for (const o of [page, tool]) if (o.open) o.socket.close();
    expect(accepted).toHaveLength(2);
  });

  it('rejects an allow-list entry that is not a bare origin', async () => {
    await expect(
      listenWebSocket({ allowedOrigins: ['https://app.example/path'], onConnection: () => {} }),
    ).rejects.toThrow(/scheme:\/\/host/);
  });
});

describe('WebSocket server: connection token', () => {
  it('generates a random base64url token by default, different per server', async () => {
    const a = await listenWebSocket({ onConnection: () => {} });
    const b = await listenWebSocket({ onConnection: () => {} });
    try {
      expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(a.token).not.toBe(b.token);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('answers a handshake without a token, or with a wrong one, with 401 and never opens a connection', async () => {
    const { server, accepted } = await start();
    const token = server.token!;
    const wrongSameLength = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const cases = [
      {},
      bearer(''),
      bearer(wrongSameLength),
      bearer(token.slice(0, 20)),
      bearer(`${token}x`),
      { Authorization: `Basic ${token}` },
    ];
    const statuses = [];
    for (const headers of cases) statuses.push(refusedWith(await handshake(server.url, { headers })));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    expect(accepted).toHaveLength(0);
    const client = new Connection(await connectWebSocket(server.url, { token })).listen();
    expect(await client.sendRequest('echo', { ok: true })).toEqual({ ok: true });
    client.close();
  });

  it('makes the SDK client reject a refused handshake with the status and reason', async () => {
    const { server } = await start();
    const error = await connectWebSocket(server.url, { token: generateToken() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebSocketHandshakeError);
    expect(error).toMatchObject({ status: 401, reason: 'missing or wrong connection token' });
  });

  it('takes the token from a browser subprotocol and answers with the plain acp-kit protocol, never echoing the token', async () => {
    const { server, accepted } = await start({ token: 'a-fixed-test-token-0123456789' });
    const outcome = await handshake(server.url, {
      protocols: [ACP_KIT_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}a-fixed-test-token-0123456789`],
    });
    expect(outcome.open && outcome.protocol).toBe(ACP_KIT_PROTOCOL);
    const wrong = await handshake(server.url, {
      protocols: [ACP_KIT_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}a-fixed-test-token-0123456780`],
    });
    expect(refusedWith(wrong)).toBe(401);
    if (outcome.open) outcome.socket.close();
    expect(accepted).toHaveLength(1);
  });

  it('compares tokens by their SHA-256 digests with timingSafeEqual, so any length compares correctly', () => {
    const token = generateToken();
    expect(tokensMatch(token, token)).toBe(true);
    expect(tokensMatch(undefined, token)).toBe(false);
    expect(tokensMatch('', token)).toBe(false);
    expect(tokensMatch(token.slice(0, 1), token)).toBe(false);
    expect(tokensMatch(`${token}${token}`, token)).toBe(false);
    expect(
      tokensMatch(token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(), token),
    ).toBe(false);
  });

  it('rejects a token that could not travel in a header, without echoing it', async () => {
    const error = await listenWebSocket({ token: 'short secret!', onConnection: () => {} }).catch(
      (e: Error) => e,
    );
    expect(String(error)).toMatch(/16 to 512 characters/);
    expect(String(error)).not.toContain('short secret!');
  });

  it('refuses noAuth together with a token, as a contradiction', async () => {
    await expect(
      listenWebSocket({ noAuth: true, token: generateToken(), onConnection: () => {} }),
    ).rejects.toThrow(/either token or noAuth/);
  });

  it('accepts anyone with noAuth on loopback', async () => {
    const { server, accepted } = await start({ noAuth: true });
    expect(server.token).toBeUndefined();
    const client = new Connection(await connectWebSocket(server.url)).listen();
    expect(await client.sendRequest('echo', { ok: 1 })).toEqual({ ok: 1 });
    client.close();
    expect(accepted).toHaveLength(1);
  });

  it('still checks Origin with noAuth', async () => {
    const { server } = await start({ noAuth: true });
    expect(refusedWith(await handshake(server.url, { origin: 'https://evil.example' }))).toBe(403);
  });
});

describe('WebSocket server: no accidental exposure', () => {
  it('refuses noAuth on a non-loopback address before binding anything', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'example.com']) {
      await expect(listenWebSocket({ host, noAuth: true, onConnection: () => {} })).rejects.toThrow(
        /without a connection token/,
      );
    }
  });

  it('tells loopback addresses from the network', () => {
    expect(
      ['127.0.0.1', '127.8.9.1', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'].map(isLoopbackHost),
    ).toEqual([true, true, true, true, true, true]);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com', '::ffff:10.0.0.1'].map(isLoopbackHost)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('WebSocket server over TLS', () => {
  let cert = '';
  let key = '';
  beforeAll(() => {
    ({ cert, key } = selfSignedCertificate());
  });

  it('serves wss:// with a certificate and key, and the client connects with the token', async () => {
    const { server } = await start({ tls: { cert, key } });
    expect(server.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
    const client = new Connection(
      await connectWebSocket(server.url, { token: server.token!, ca: cert }),
    ).listen();
    expect(await client.sendRequest('echo', { over: 'tls' })).toEqual({ over: 'tls' });
    client.close();
    await expect(connectWebSocket(server.url, { ca: cert })).rejects.toMatchObject({ status: 401 });
  });
});
