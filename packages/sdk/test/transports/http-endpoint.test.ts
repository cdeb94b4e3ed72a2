/**
 * The Streamable HTTP profile of `listenAcp`, driven with raw `fetch` so every status of the RFD
 * ("Streamable HTTP & WebSocket Transport") and every bad input is visible: what each request gets
 * back, which stream carries what, and that the endpoint keeps serving everyone else.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Connection } from '../../src/rpc/index.js';
import {
  type AcpServerOptions,
  type AcpTransportServer,
  connectWebSocket,
  listenAcp,
  MemoryCookieStore,
} from '../../src/transports/index.js';
import { readSseData } from '../../src/transports/sse-parser.js';

/** Releases the turn of a "hold" prompt, which waits between its two chunks until this is called. */
let releaseHeld: (() => void) | undefined;

/** Sessions whose held turn was cancelled (session/cancel releases the hold). */
const cancelled = new Set<string>();

/**
 * Replies with one chunk per word of the prompt; "flood N" replies with N chunks of 1 KB; "hold"
 * replies "before", waits for {@link releaseHeld} (or a session/cancel, which ends the turn
 * `cancelled`), then replies "after"; "ask" asks the submitter's permission and replies with the
 * option chosen.
 */
function wordsAgent(): Agent {
  return new Agent({
    info: { name: 'acp-kit-test-agent', version: '0.0.0' },
    replay: 'as-retained',
    onCancel(session) {
      cancelled.add(session.id);
      releaseHeld?.();
    },
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      await session.running();
      const text = prompt.content.map((block) => ('text' in block ? block.text : '')).join(' ');
      const reply = await session.agentMessage();
      if (text === 'hold') {
        await reply.chunk({ type: 'text', text: 'before' });
        await new Promise<void>((resolve) => {
          releaseHeld = resolve;
        });
        if (cancelled.delete(session.id)) return session.idle('cancelled');
        await reply.chunk({ type: 'text', text: 'after' });
        await session.idle('end_turn');
        return;
      }
      if (text === 'ask') {
        const answer = await session.requestPermission(
          { title: 'write file', options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] },
          client,
        );
        await reply.chunk({
          type: 'text',
          text: `chose ${answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'none'}`,
        });
        await session.idle('end_turn');
        return;
      }
      const flood = /^flood (\d+)$/.exec(text);
      const chunks = flood
        ? Array.from({ length: Number(flood[1]) }, () => 'x'.repeat(1024))
        : text.split(' ');
      for (const chunk of chunks) await reply.chunk({ type: 'text', text: chunk });
      await session.idle('end_turn');
    },
  });
}

let server: AcpTransportServer | undefined;
let agent: Agent;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: Partial<AcpServerOptions> = {}): Promise<AcpTransportServer> {
  agent = wordsAgent();
  server = await listenAcp({
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    ...options,
  });
  return server;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 2, info: { name: 'raw-http', version: '0.0.0' } },
};

function auth(extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${server!.token}`, ...extra };
}

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server!.url, {
    method: 'POST',
    headers: auth({ 'Content-Type': 'application/json', ...headers }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function initialize(): Promise<string> {
  const response = await post(INITIALIZE);
  expect(response.status).toBe(200);
  return response.headers.get('acp-connection-id')!;
}

/** An open SSE stream: each message as it arrives. */
interface Stream {
  next(): Promise<Record<string, unknown>>;
  until(test: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>[]>;
  close(): void;
}

async function open(connectionId: string, sessionId?: string): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(server!.url, {
    headers: auth({
      Accept: 'text/event-stream',
      'Acp-Connection-Id': connectionId,
      ...(sessionId ? { 'Acp-Session-Id': sessionId } : {}),
    }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const events = readSseData(response.body!, 1 << 20);
  const next = async (): Promise<Record<string, unknown>> => {
    const { value, done } = await events.next();
    if (done) throw new Error('stream ended');
    return JSON.parse(value);
  };
  return {
    next,
    async until(test) {
      const seen: Record<string, unknown>[] = [];
      for (;;) {
        const message = await next();
        seen.push(message);
        if (test(message)) return seen;
      }
    },
    close: () => controller.abort(),
  };
}

/** Initializes, opens the connection stream, creates a session and opens its stream. */
async function withSession(): Promise<{
  connectionId: string;
  sessionId: string;
  main: Stream;
  session: Stream;
}> {
  const connectionId = await initialize();
  const main = await open(connectionId);
  expect(
    (
      await post(
        { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } },
        { 'Acp-Connection-Id': connectionId },
      )
    ).status,
  ).toBe(202);
  const answer = await main.next();
  const sessionId = (answer.result as { sessionId: string }).sessionId;
  const session = await open(connectionId, sessionId);
  return { connectionId, sessionId, main, session };
}

const promptMessage = (id: number, sessionId: string, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'session/prompt',
  params: { sessionId, prompt: [{ type: 'text', text }] },
});

const isIdle = (m: Record<string, unknown>): boolean => JSON.stringify(m).includes('"state":"idle"');

describe('POST initialize', () => {
  it('answers 200 with the JSON answer, an unguessable Acp-Connection-Id and an affinity cookie', async () => {
    await serve();
    const first = await post(INITIALIZE);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(await first.json()).toMatchObject({ id: 0, result: { protocolVersion: 2 } });
    const id = first.headers.get('acp-connection-id')!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.headers.get('set-cookie')).toMatch(
      /^acp_affinity=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const second = await post(INITIALIZE);
    expect(second.headers.get('acp-connection-id')).not.toBe(id);
    // One cookie value per server: a load balancer routes every connection of this process alike.
    expect(second.headers.get('set-cookie')).toBe(first.headers.get('set-cookie'));
  });

  it('refuses an initialize notification (no id) with 400 and a JSON-RPC error', async () => {
    await serve();
    const response = await post({ jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: 2 } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600, data: { pointer: '/id' } } });
  });
});

describe('the RFD status codes', () => {
  it('415 for a POST that is not application/json', async () => {
    await serve();
    const response = await post(JSON.stringify(INITIALIZE), { 'Content-Type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(await response.text()).toContain('application/json');
  });

  it('406 for a GET without Accept: text/event-stream', async () => {
    await serve();
    const connectionId = await initialize();
    const response = await fetch(server!.url, { headers: auth({ 'Acp-Connection-Id': connectionId }) });
    expect(response.status).toBe(406);
  });

  it('400 for a POST other than initialize without Acp-Connection-Id (POST before initialize)', async () => {
    await serve();
    const response = await post({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Missing Acp-Connection-Id');
  });

  it('400 for a GET or DELETE without Acp-Connection-Id', async () => {
    await serve();
    const get = await fetch(server!.url, { headers: auth({ Accept: 'text/event-stream' }) });
    expect(get.status).toBe(400);
    const del = await fetch(server!.url, { method: 'DELETE', headers: auth() });
    expect(del.status).toBe(400);
  });

  it('404 for an unknown or forged Acp-Connection-Id on POST, GET and DELETE', async () => {
    await serve();
    const real = await initialize();
    const forged = `${real.slice(0, -1)}${real.endsWith('A') ? 'B' : 'A'}`;
    const headers = { 'Acp-Connection-Id': forged };
    expect(
      (await post({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } }, headers)).status,
    ).toBe(404);
    expect(
      (await fetch(server!.url, { headers: auth({ ...headers, Accept: 'text/event-stream' }) })).status,
    ).toBe(404);
    expect((await fetch(server!.url, { method: 'DELETE', headers: auth(headers) })).status).toBe(404);
  });

  it('501 with a JSON-RPC error for a batch, which reaches no agent', async () => {
    await serve();
    const response = await post([INITIALIZE]);
    expect(response.status).toBe(501);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('400 with -32700 for a body that is not JSON, and for invalid UTF-8', async () => {
    await serve();
    const bad = await post('{"jsonrpc":"2.0",');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
    const bytes = await fetch(server!.url, {
      method: 'POST',
      headers: auth({ 'Content-Type': 'application/json' }),
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    expect(bytes.status).toBe(400);
    expect(await bytes.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('400 with -32600 for JSON that is not an object', async () => {
    await serve();
    const response = await post('42');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('413 for a body over maxMessageBytes, without reading it whole; the server keeps serving', async () => {
    await serve({ maxMessageBytes: 1024 });
    const response = await post({ ...INITIALIZE, params: { ...INITIALIZE.params, pad: 'x'.repeat(4096) } });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
    expect((await post(INITIALIZE)).status).toBe(200);
  });

  it('405 for other methods', async () => {
    await serve();
    const response = await fetch(server!.url, { method: 'PUT', headers: auth() });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('404 for another path', async () => {
    await serve();
    const response = await fetch(server!.url.replace('/acp', '/other'), { headers: auth() });
    expect(response.status).toBe(404);
  });
});

describe('security on every request', () => {
  it('refuses a request with a valid Acp-Connection-Id but no token (401): the ID is not a credential', async () => {
    await serve();
    const connectionId = await initialize();
    const response = await fetch(server!.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Acp-Connection-Id': connectionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="acp"');
    const stream = await fetch(server!.url, {
      headers: {
        Accept: 'text/event-stream',
        'Acp-Connection-Id': connectionId,
        Authorization: 'Bearer wrong-token-0123456789',
      },
    });
    expect(stream.status).toBe(401);
  });

  it('refuses an Origin that is not allowed (403) and answers an allowed one with CORS headers', async () => {
    await serve({ allowedOrigins: ['http://app.example'] });
    const refused = await post(INITIALIZE, { Origin: 'http://evil.example' });
    expect(refused.status).toBe(403);
    const allowed = await post(INITIALIZE, { Origin: 'http://app.example' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect(allowed.headers.get('access-control-expose-headers')).toBe('Acp-Connection-Id');
    const preflight = await fetch(server!.url, {
      method: 'OPTIONS',
      headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Acp-Session-Id');
    const badPreflight = await fetch(server!.url, {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example' },
    });
    expect(badPreflight.status).toBe(403);
  });

  it('caps open connections (503 in total) and frees the slot on DELETE', async () => {
    await serve({ limits: { maxConnections: 1 } });
    const connectionId = await initialize();
    const refused = await post(INITIALIZE);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(
      (await fetch(server!.url, { method: 'DELETE', headers: auth({ 'Acp-Connection-Id': connectionId }) }))
        .status,
    ).toBe(202);
    expect((await post(INITIALIZE)).status).toBe(200);
  });

  it('limits the rate of new connections per address (429 with Retry-After)', async () => {
    await serve({ limits: { handshakeBurst: 2, handshakesPerSecond: 0.001 } });
    expect((await post(INITIALIZE)).status).toBe(200);
    expect((await post(INITIALIZE)).status).toBe(200);
    const third = await post(INITIALIZE);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('routing', () => {
  it('answers session/new on the connection stream; updates and the prompt answer on the session stream', async () => {
    await serve();
    const { connectionId, sessionId, session } = await withSession();
    const accepted = await post(promptMessage(2, sessionId, 'hello there'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': sessionId,
    });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
    const seen = await session.until((m) => m.id === 2);
    expect(seen.at(-1)).toMatchObject({ id: 2, result: { messageId: expect.any(String) } });
    const more = await session.until(isIdle);
    const chunks = [...seen, ...more].filter((m) => JSON.stringify(m).includes('agent_message_chunk'));
    expect(
      chunks.map((m) => (m.params as { update: { content: { text: string } } }).update.content.text),
    ).toEqual(['hello', 'there']);
  });

  it('hosts two sessions on one connection, each on its own stream: neither sees the other’s turn', async () => {
    await serve();
    const { connectionId, sessionId: first, main, session: firstStream } = await withSession();
    await post(
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/r' } },
      { 'Acp-Connection-Id': connectionId },
    );
    const second = ((await main.until((m) => m.id === 2)).at(-1)!.result as { sessionId: string }).sessionId;
    expect(second).not.toBe(first);
    const secondStream = await open(connectionId, second);
    await post(promptMessage(3, first, 'one'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': first,
    });
    await post(promptMessage(4, second, 'two'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': second,
    });
    const seenFirst = await firstStream.until(isIdle);
    const seenSecond = await secondStream.until(isIdle);
    expect(JSON.stringify(seenFirst)).toContain('"one"');
    expect(JSON.stringify(seenFirst)).not.toContain(second);
    expect(JSON.stringify(seenSecond)).not.toContain(first);
    expect(JSON.stringify(seenSecond)).toContain('"two"');
  });

  it('hands a second initialize on a connection to the agent, which answers it on the connection stream as on stdio', async () => {
    await serve();
    const connectionId = await initialize();
    const main = await open(connectionId);
    const again = await post({ ...INITIALIZE, id: 9 }, { 'Acp-Connection-Id': connectionId });
    expect(again.status).toBe(202);
    expect(await main.next()).toMatchObject({ id: 9, result: { protocolVersion: 2 } });
  });

  it('400 for a session-scoped POST without Acp-Session-Id, or with one that differs from params.sessionId', async () => {
    await serve();
    const { connectionId, sessionId } = await withSession();
    const missing = await post(promptMessage(2, sessionId, 'hi'), { 'Acp-Connection-Id': connectionId });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('Missing Acp-Session-Id');
    const mismatched = await post(promptMessage(3, sessionId, 'hi'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': 'some-other-session',
    });
    expect(mismatched.status).toBe(400);
    expect(await mismatched.text()).toContain('Mismatched Acp-Session-Id');
  });

  it('400 for a request whose Acp-Protocol-Version differs from the version initialize negotiated; the header may be left out', async () => {
    await serve();
    const connectionId = await initialize();
    const headers = { 'Acp-Connection-Id': connectionId };
    const wrong = await post(
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } },
      { ...headers, 'Acp-Protocol-Version': '1' },
    );
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain(
      'Acp-Protocol-Version "1" does not match the protocol version this connection negotiated at initialize (2)',
    );
    const wrongGet = await fetch(server!.url, {
      headers: auth({ ...headers, Accept: 'text/event-stream', 'Acp-Protocol-Version': '3' }),
    });
    expect(wrongGet.status).toBe(400);
    const main = await open(connectionId);
    const right = await post(
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/r' } },
      { ...headers, 'Acp-Protocol-Version': '2' },
    );
    expect(right.status).toBe(202);
    expect(await main.next()).toMatchObject({ id: 2, result: { sessionId: expect.any(String) } });
    const without = await post({ jsonrpc: '2.0', id: 3, method: 'session/list', params: {} }, headers);
    expect(without.status).toBe(202);
    expect(await main.next()).toMatchObject({ id: 3 });
    main.close();
  });

  it('session/cancel: 400 without Acp-Session-Id; with it 202 and an empty body, and the held turn ends cancelled on the session stream', async () => {
    await serve();
    const { connectionId, sessionId, session } = await withSession();
    const headers = { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': sessionId };
    expect((await post(promptMessage(2, sessionId, 'hold'), headers)).status).toBe(202);
    await session.until((m) => JSON.stringify(m).includes('"before"'));
    const cancel = { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } };
    const missing = await post(cancel, { 'Acp-Connection-Id': connectionId });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('Missing Acp-Session-Id');
    const accepted = await post(cancel, headers);
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
    const seen = await session.until((m) => JSON.stringify(m).includes('"stopReason":"cancelled"'));
    expect(JSON.stringify(seen)).not.toContain('"after"');
  });

  it('a permission answer: 400 without the session its request went on; with it 202, and the turn goes on', async () => {
    await serve();
    const { connectionId, sessionId, session } = await withSession();
    const headers = { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': sessionId };
    expect((await post(promptMessage(2, sessionId, 'ask'), headers)).status).toBe(202);
    const [asked] = (await session.until((m) => m.method === 'session/request_permission')).slice(-1);
    const answer = {
      jsonrpc: '2.0',
      id: asked!.id,
      result: { outcome: { outcome: 'selected', optionId: 'allow' } },
    };
    const missing = await post(answer, { 'Acp-Connection-Id': connectionId });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('Acp-Session-Id');
    expect((await post(answer, headers)).status).toBe(202);
    const seen = await session.until(isIdle);
    expect(JSON.stringify(seen)).toContain('chose allow');
  });

  it('sends the initialize answer unchanged: no connectionId in the body, the ID in the header only', async () => {
    await serve();
    const response = await post(INITIALIZE);
    const body = (await response.json()) as { result: Record<string, unknown> };
    expect(body.result).not.toHaveProperty('connectionId');
    expect(JSON.stringify(body)).not.toContain(response.headers.get('acp-connection-id')!);
  });

  it('a v1 session/load (the RFD’s resume flow, as a v1 agent behind the gateway serves it): its replay on the session stream, its answer on the connection stream', async () => {
    // A bare v1 agent, not ours: it answers initialize and session/load, sending one replayed update first.
    server = await listenAcp({
      onConnection: (transport) => {
        const connection = new Connection(transport);
        connection.onRequest('initialize', () => ({
          protocolVersion: 1,
          agentCapabilities: { loadSession: true },
        }));
        connection.onRequest('session/load', async (raw) => {
          const params = raw as { sessionId: string };
          await connection.sendNotification('session/update', {
            sessionId: params.sessionId,
            update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'replayed' } },
          });
          return {};
        });
        connection.listen();
      },
    });
    const connectionId = await initialize();
    const main = await open(connectionId);
    const headers = { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': 'sess_v1' };
    const load = {
      jsonrpc: '2.0',
      id: 7,
      method: 'session/load',
      params: { sessionId: 'sess_v1', cwd: '/r', mcpServers: [] },
    };
    expect((await post(load, headers)).status).toBe(202);
    const session = await open(connectionId, 'sess_v1');
    expect(await session.next()).toMatchObject({
      method: 'session/update',
      params: { sessionId: 'sess_v1', update: { content: { text: 'replayed' } } },
    });
    expect(await main.next()).toMatchObject({ id: 7, result: {} });
    main.close();
    session.close();
  });

  it('409 for a second GET on a stream that is open; the first keeps delivering', async () => {
    await serve();
    const { connectionId, sessionId, session } = await withSession();
    const twice = await fetch(server!.url, {
      headers: auth({
        Accept: 'text/event-stream',
        'Acp-Connection-Id': connectionId,
        'Acp-Session-Id': sessionId,
      }),
    });
    expect(twice.status).toBe(409);
    const mainTwice = await fetch(server!.url, {
      headers: auth({ Accept: 'text/event-stream', 'Acp-Connection-Id': connectionId }),
    });
    expect(mainTwice.status).toBe(409);
    await post(promptMessage(2, sessionId, 'still here'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': sessionId,
    });
    expect((await session.until((m) => m.id === 2)).at(-1)).toMatchObject({ id: 2 });
  });

  it('buffers a session stream until its GET arrives', async () => {
    await serve();
    const connectionId = await initialize();
    const main = await open(connectionId);
    await post(
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } },
      { 'Acp-Connection-Id': connectionId },
    );
    const sessionId = ((await main.next()).result as { sessionId: string }).sessionId;
    await post(promptMessage(2, sessionId, 'early bird'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': sessionId,
    });
    const session = await open(connectionId, sessionId);
    expect((await session.until(isIdle)).some((m) => m.id === 2)).toBe(true);
  });

  it('a session stream has a lifetime of its own: closed by its reader, the connection stream goes on, and reopened it gets what was sent meanwhile', async () => {
    await serve();
    const { connectionId, sessionId, main, session } = await withSession();
    session.close();
    // The connection and its connection stream outlive the session stream.
    const headers = { 'Acp-Connection-Id': connectionId };
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'session/list', params: {} }, headers)).status).toBe(
      202,
    );
    expect(await main.next()).toMatchObject({ id: 2, result: { sessions: [{ sessionId }] } });
    // A turn while no GET holds the session's stream: its messages wait for the next one.
    const sessionHeaders = { ...headers, 'Acp-Session-Id': sessionId };
    expect((await post(promptMessage(3, sessionId, 'while away'), sessionHeaders)).status).toBe(202);
    const reopened = await vi.waitFor(() => open(connectionId, sessionId), { timeout: 10_000 });
    const seen = await reopened.until(isIdle);
    expect(seen.some((m) => m.id === 3)).toBe(true);
    expect(textsIn(seen)).toEqual(['while', 'away']);
    reopened.close();
    main.close();
  });

  it('404 for a session stream of a session the agent does not have (with sessionExists); 400 for an over-long ID', async () => {
    await serve({ http: { sessionExists: async (id) => (await agent.log.getSession(id)) !== undefined } });
    const connectionId = await initialize();
    const unknown = await fetch(server!.url, {
      headers: auth({
        Accept: 'text/event-stream',
        'Acp-Connection-Id': connectionId,
        'Acp-Session-Id': 'no-such-session',
      }),
    });
    expect(unknown.status).toBe(404);
    const long = await fetch(server!.url, {
      headers: auth({
        Accept: 'text/event-stream',
        'Acp-Connection-Id': connectionId,
        'Acp-Session-Id': 'x'.repeat(2000),
      }),
    });
    expect(long.status).toBe(400);
  });

  it('a session of another connection is opened by resuming it, and the answer follows the replay on its stream', async () => {
    await serve({ http: { sessionExists: async (id) => (await agent.log.getSession(id)) !== undefined } });
    const first = await withSession();
    const headers = { 'Acp-Connection-Id': first.connectionId, 'Acp-Session-Id': first.sessionId };
    await post(promptMessage(2, first.sessionId, 'remember me'), headers);
    await first.session.until(isIdle);

    const connectionId = await initialize();
    await open(connectionId);
    // The GET comes first (as the official client does it): the agent has the session, so it opens.
    const session = await open(connectionId, first.sessionId);
    const resume = {
      jsonrpc: '2.0',
      id: 5,
      method: 'session/resume',
      params: { sessionId: first.sessionId, cwd: '/r', replayFrom: { type: 'start' } },
    };
    expect(
      (await post(resume, { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': first.sessionId })).status,
    ).toBe(202);
    const replay = await session.until((m) => m.id === 5);
    expect(JSON.stringify(replay)).toContain('remember');
    expect(replay.at(-1)).toMatchObject({ id: 5, result: {} });
  });
});

describe('the end of a connection', () => {
  it('DELETE answers 202, ends its streams, and the connection is gone (404); its session lives on', async () => {
    await serve();
    const { connectionId, sessionId, session, main } = await withSession();
    await post(promptMessage(2, sessionId, 'a b c'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': sessionId,
    });
    const deleted = await fetch(server!.url, {
      method: 'DELETE',
      headers: auth({ 'Acp-Connection-Id': connectionId }),
    });
    expect(deleted.status).toBe(202);
    await expect(main.until(() => false)).rejects.toThrow('stream ended');
    await expect(session.until(() => false)).rejects.toThrow('stream ended');
    expect(
      (
        await post(promptMessage(3, sessionId, 'x'), {
          'Acp-Connection-Id': connectionId,
          'Acp-Session-Id': sessionId,
        })
      ).status,
    ).toBe(404);
    expect(await agent.log.getSession(sessionId)).toBeDefined();

    // The turn the DELETE interrupted is in the session for a client that resumes it.
    const connectionId2 = await initialize();
    await open(connectionId2);
    const resumed = await open(connectionId2, sessionId);
    const resume = {
      jsonrpc: '2.0',
      id: 4,
      method: 'session/resume',
      params: { sessionId, cwd: '/r', replayFrom: { type: 'start' } },
    };
    await post(resume, { 'Acp-Connection-Id': connectionId2, 'Acp-Session-Id': sessionId });
    const seen = await resumed.until((m) => m.id === 4);
    expect(seen.at(-1)).toMatchObject({ id: 4, result: {} });
    expect(JSON.stringify(seen)).toContain('"a b c"');
  });

  it('reclaims a connection that vanished without DELETE once it had no stream open for idleTimeoutMs', async () => {
    await serve({ http: { idleTimeoutMs: 100 } });
    const connectionId = await initialize();
    expect(server!.openConnections).toBe(1);
    await vi.waitFor(() => expect(server!.openConnections).toBe(0), { timeout: 5000 });
    const response = await post(
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } },
      { 'Acp-Connection-Id': connectionId },
    );
    expect(response.status).toBe(404);
  });

  it('writes a keepalive comment on a stream that stays quiet, so proxies do not time it out', async () => {
    await serve({ http: { keepAliveMs: 50 } });
    const connectionId = await initialize();
    const controller = new AbortController();
    const response = await fetch(server!.url, {
      headers: auth({ Accept: 'text/event-stream', 'Acp-Connection-Id': connectionId }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // Nothing is sent on this connection: whatever arrives is the server's own keepalive.
    while (!text.includes(':\n\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended before a keepalive');
      text += decoder.decode(value, { stream: true });
    }
    expect(text.trim()).toMatch(/^:/);
    controller.abort();
  });

  it('cuts off a connection whose session stream reader stopped reading; other connections are served meanwhile', async () => {
    await serve({ http: { maxStreamBufferBytes: 64 * 1024 } });
    const stalled = await withSession();
    stalled.session.close();
    // A raw GET that never reads: its socket buffers fill, then the stream's bound is hit.
    const headers = { 'Acp-Connection-Id': stalled.connectionId, 'Acp-Session-Id': stalled.sessionId };
    const { port } = new URL(server!.url);
    const response = await new Promise<IncomingMessage>((resolve) => {
      httpRequest(
        { host: '127.0.0.1', port, path: '/acp', headers: auth({ ...headers, Accept: 'text/event-stream' }) },
        resolve,
      ).end();
    });
    expect(response.statusCode).toBe(200);
    response.pause();
    await post(promptMessage(2, stalled.sessionId, 'flood 4000'), headers);

    const other = await withSession();
    const otherHeaders = { 'Acp-Connection-Id': other.connectionId, 'Acp-Session-Id': other.sessionId };
    await post(promptMessage(2, other.sessionId, 'unaffected'), otherHeaders);
    expect(JSON.stringify(await other.session.until(isIdle))).toContain('unaffected');

    await expect(stalled.main.until(() => false)).rejects.toThrow('stream ended');
    expect((await post(promptMessage(3, stalled.sessionId, 'x'), headers)).status).toBe(404);
    response.destroy();
  });
});

/** A second connection that resumes `sessionId` with replay from the start; resolves once it has the answer. */
async function resumer(
  sessionId: string,
  id = 9,
): Promise<{ connectionId: string; session: Stream; replay: Record<string, unknown>[] }> {
  const connectionId = await initialize();
  await open(connectionId);
  const session = await open(connectionId, sessionId);
  const resume = {
    jsonrpc: '2.0',
    id,
    method: 'session/resume',
    params: { sessionId, cwd: '/r', replayFrom: { type: 'start' } },
  };
  expect(
    (await post(resume, { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': sessionId })).status,
  ).toBe(202);
  const replay = await session.until((m) => m.id === id);
  return { connectionId, session, replay };
}

const remove = (connectionId: string): Promise<Response> =>
  fetch(server!.url, { method: 'DELETE', headers: auth({ 'Acp-Connection-Id': connectionId }) });

/** The agent's text in these messages: its chunks, and whole-message updates (a folded replay). */
const textsIn = (messages: Record<string, unknown>[]): string[] =>
  messages.flatMap((m) => {
    const update = (
      m.params as
        | { update?: { sessionUpdate?: string; content?: { text?: string } | { text?: string }[] } }
        | undefined
    )?.update;
    const blocks = update?.content === undefined ? [] : [update.content].flat();
    const texts = blocks.flatMap((block) => (block?.text ? [block.text] : []));
    return update?.sessionUpdate === 'agent_message_chunk' || update?.sessionUpdate === 'agent_message'
      ? texts
      : [];
  });

describe('DELETE in the middle of things', () => {
  it('mid-turn: the connection is gone, the turn goes on for another attached client, and nothing retained is lost', async () => {
    await serve();
    const a = await withSession();
    const headersA = { 'Acp-Connection-Id': a.connectionId, 'Acp-Session-Id': a.sessionId };
    const b = await resumer(a.sessionId);
    expect((await post(promptMessage(2, a.sessionId, 'hold'), headersA)).status).toBe(202);
    await b.session.until((m) => textsIn([m]).includes('before'));

    expect((await remove(a.connectionId)).status).toBe(202);
    await expect(a.session.until(() => false)).rejects.toThrow('stream ended');
    await expect(a.main.until(() => false)).rejects.toThrow('stream ended');
    expect((await post(promptMessage(3, a.sessionId, 'x'), headersA)).status).toBe(404);
    await vi.waitFor(() => expect(agent.sessions.get(a.sessionId)?.attachedCount).toBe(1), {
      timeout: 10_000,
    });

    releaseHeld!();
    const rest = await b.session.until(isIdle);
    expect(textsIn(rest)).toEqual(['after']);
    expect(JSON.stringify(rest.at(-1))).toContain('"stopReason":"end_turn"');

    // A third client resuming the session gets the whole turn, the user message included.
    const c = await resumer(a.sessionId, 10);
    expect(JSON.stringify(c.replay)).toContain('"hold"');
    expect(textsIn(c.replay).join('')).toBe('beforeafter');
  });

  it('mid-replay: the replay stops, the connection leaves nothing attached, and the agent keeps serving', async () => {
    await serve();
    const first = await withSession();
    const headers = { 'Acp-Connection-Id': first.connectionId, 'Acp-Session-Id': first.sessionId };
    expect((await post(promptMessage(2, first.sessionId, 'flood 3000'), headers)).status).toBe(202);
    await first.session.until(isIdle);
    expect((await remove(first.connectionId)).status).toBe(202);

    // A resume whose replay (3 000 retained chunks, about 3 MB) is read a little, then DELETEd.
    const connectionId = await initialize();
    await open(connectionId);
    const replaying = await open(connectionId, first.sessionId);
    const resume = {
      jsonrpc: '2.0',
      id: 4,
      method: 'session/resume',
      params: { sessionId: first.sessionId, cwd: '/r', replayFrom: { type: 'start' } },
    };
    await post(resume, { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': first.sessionId });
    const started = await replaying.until((m) => textsIn([m]).length > 0);
    expect(started.some((m) => m.id === 4)).toBe(false);
    expect((await remove(connectionId)).status).toBe(202);
    const afterDelete = await replaying.until(() => false).catch((error: Error) => error);
    expect(afterDelete).toBeInstanceOf(Error);
    expect((afterDelete as Error).message).toBe('stream ended');
    await vi.waitFor(() => expect(server!.openConnections).toBe(0), { timeout: 10_000 });
    await vi.waitFor(() => expect(agent.sessions.get(first.sessionId)?.attachedCount ?? 0).toBe(0), {
      timeout: 10_000,
    });

    // The agent serves a new turn on that session, and a full replay, read up to its answer, holds
    // all 3 000 chunks (the answer follows the whole replay).
    const next = await resumer(first.sessionId, 5);
    expect(textsIn(next.replay).join('')).toHaveLength(3000 * 1024);
    const nextHeaders = { 'Acp-Connection-Id': next.connectionId, 'Acp-Session-Id': first.sessionId };
    await post(promptMessage(6, first.sessionId, 'still here'), nextHeaders);
    expect(textsIn(await next.session.until(isIdle))).toEqual(['still', 'here']);
  });
});

describe('thousands of half-open connections', () => {
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });

  /** Opens `count` TCP sockets that each send `head` (a partial request) and then nothing. */
  async function stall(count: number, head: string): Promise<{ closed(): number }> {
    let closed = 0;
    const { port } = new URL(server!.url);
    await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(Number(port), '127.0.0.1');
            sockets.push(socket);
            socket.on('error', () => {});
            // Read what the server sends (a 408), so its close is seen.
            socket.resume();
            socket.once('close', () => {
              closed += 1;
              resolve();
            });
            socket.once('connect', () => {
              socket.write(head);
              resolve();
            });
          }),
      ),
    );
    return { closed: () => closed };
  }

  it('2000 sockets stalled in a partial request head: the excess is dropped at once, the rest at the timeout, and a client is served', async () => {
    // Sockets that have not presented the token yet the endpoint holds at once: maxPendingHandshakes (8 here).
    await serve({ limits: { maxConnections: 4, maxPendingHandshakes: 8, handshakeTimeoutMs: 60_000 } });
    const flood = await stall(2000, 'POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl');
    await vi.waitFor(() => expect(flood.closed()).toBeGreaterThanOrEqual(2000 - 8), { timeout: 60_000 });
    expect(flood.closed()).toBe(2000 - 8);
    for (const socket of sockets.splice(0)) socket.destroy();
    // Served once the server has seen those sockets close (until then it drops new ones too); an
    // attempt that reached it in that moment may go unanswered, so each attempt has a bound.
    const attempt = (): Promise<number | undefined> =>
      fetch(server!.url, {
        method: 'POST',
        headers: auth({ 'Content-Type': 'application/json' }),
        body: JSON.stringify(INITIALIZE),
        signal: AbortSignal.timeout(2000),
      }).then(
        (response) => response.status,
        () => undefined,
      );
    await vi.waitFor(async () => expect(await attempt()).toBe(200), { timeout: 20_000, interval: 100 });
  });

  it('partial request heads are closed by the server once the handshake timeout passes', async () => {
    await serve({ limits: { handshakeTimeoutMs: 300 } });
    const flood = await stall(200, 'GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await vi.waitFor(() => expect(flood.closed()).toBe(200), { timeout: 60_000 });
    expect((await post(INITIALIZE)).status).toBe(200);
  });

  it('2000 initializes that never open a stream are capped (429/503) and reclaimed when idle; then a client is served', async () => {
    await serve({
      limits: {
        maxConnections: 8,
        maxConnectionsPerAddress: 8,
        handshakeBurst: 10_000,
        handshakesPerSecond: 10_000,
      },
      http: { idleTimeoutMs: 200 },
    });
    const tally = new Map<number | 'reset', number>();
    for (let batch = 0; batch < 40; batch += 1) {
      // A refused POST may be answered before its body is read: the client can see a reset then.
      const statuses = await Promise.all(
        Array.from({ length: 50 }, () =>
          post(INITIALIZE).then(
            (response) => response.status,
            () => 'reset' as const,
          ),
        ),
      );
      for (const status of statuses) tally.set(status, (tally.get(status) ?? 0) + 1);
      expect(server!.openConnections).toBeLessThanOrEqual(8);
    }
    expect([...tally.keys()].every((k) => [200, 429, 503, 'reset'].includes(k))).toBe(true);
    expect((tally.get(429) ?? 0) + (tally.get(503) ?? 0)).toBeGreaterThan(0);
    expect(tally.get(200)).toBeLessThan(2000);
    await vi.waitFor(() => expect(server!.openConnections).toBe(0), { timeout: 60_000 });
    const { connectionId, sessionId, session } = await withSession();
    await post(promptMessage(2, sessionId, 'served'), {
      'Acp-Connection-Id': connectionId,
      'Acp-Session-Id': sessionId,
    });
    expect(textsIn(await session.until(isIdle))).toEqual(['served']);
  });
});

describe('WebSocket on the same endpoint', () => {
  it('upgrades a GET with Upgrade: websocket on /acp and sends Acp-Connection-Id on the 101', async () => {
    await serve();
    const socket = new WebSocket(server!.webSocketUrl, { headers: auth() });
    const upgraded = new Promise<string | undefined>((resolve, reject) => {
      socket.once('upgrade', (response) =>
        resolve(response.headers['acp-connection-id'] as string | undefined),
      );
      socket.once('error', reject);
    });
    const opened = new Promise((resolve) => socket.once('open', resolve));
    expect(await upgraded).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await opened;
    socket.send(JSON.stringify(INITIALIZE));
    const answer = await new Promise<string>((resolve) =>
      socket.once('message', (data) => resolve(String(data))),
    );
    expect(JSON.parse(answer)).toMatchObject({ id: 0, result: { protocolVersion: 2 } });
    socket.close();
  });

  it('still wants initialize first on the new connection: a request before it gets -32600 naming initialize, and the socket stays usable', async () => {
    await serve();
    const socket = new WebSocket(server!.webSocketUrl, { headers: auth() });
    const answers: Record<string, unknown>[] = [];
    socket.on('message', (data) => answers.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } }));
    await vi.waitFor(() => expect(answers).toHaveLength(1), { timeout: 10_000 });
    expect(answers[0]).toMatchObject({
      id: 1,
      error: { code: -32600, data: { pointer: '/method', expected: 'initialize' } },
    });
    socket.send(JSON.stringify(INITIALIZE));
    await vi.waitFor(() => expect(answers).toHaveLength(2), { timeout: 10_000 });
    expect(answers[1]).toMatchObject({ id: 0, result: { protocolVersion: 2 } });
    socket.close();
  });

  it('cleans up the connection when its socket closes; the session it opened lives on for a resume', async () => {
    await serve();
    const socket = new WebSocket(server!.webSocketUrl, { headers: auth() });
    const answers: Record<string, unknown>[] = [];
    socket.on('message', (data) => answers.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(JSON.stringify(INITIALIZE));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } }));
    await vi.waitFor(() => expect(answers.find((m) => m.id === 1)).toBeDefined(), { timeout: 10_000 });
    const sessionId = (answers.find((m) => m.id === 1)!.result as { sessionId: string }).sessionId;
    expect(server!.openConnections).toBe(1);
    await vi.waitFor(() => expect(agent.sessions.get(sessionId)?.attachedCount).toBe(1), { timeout: 10_000 });
    socket.close();
    await vi.waitFor(() => expect(server!.openConnections).toBe(0), { timeout: 10_000 });
    await vi.waitFor(() => expect(agent.sessions.get(sessionId)?.attachedCount ?? 0).toBe(0), {
      timeout: 10_000,
    });
    const { replay } = await resumer(sessionId);
    expect(replay.at(-1)).toMatchObject({ result: {} });
  });

  it('sets the affinity cookie on the 101, which connectWebSocket keeps and returns on its next handshake', async () => {
    const cookies: (string | undefined)[] = [];
    agent = wordsAgent();
    server = await listenAcp({
      onConnection: (transport, request) => {
        cookies.push(request.headers.cookie);
        agent.serve(new Connection(transport) as AgentConnection);
      },
    });
    const jar = new MemoryCookieStore();
    const first = await connectWebSocket(server.webSocketUrl, { token: server.token!, cookies: jar });
    expect(jar.header()).toMatch(/^acp_affinity=[A-Za-z0-9_-]{16}$/);
    await first.writer.close();
    const second = await connectWebSocket(server.webSocketUrl, { token: server.token!, cookies: jar });
    await second.writer.close();
    expect(cookies).toEqual([undefined, jar.header()]);
  });

  it('refuses an upgrade without the token (401) like any other request', async () => {
    await serve();
    const socket = new WebSocket(server!.webSocketUrl);
    const status = await new Promise<number>((resolve) => {
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('error', () => undefined);
    });
    expect(status).toBe(401);
  });
});
