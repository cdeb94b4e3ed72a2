/**
 * The RFD's routing rule for what the server sends on its own: a message naming no session goes
 * on the connection stream. `auth/status_update` (sent after a login changes the state) is such a
 * message; it reaches the connection stream, and a session stream open at the time carries none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Connection } from '../../src/rpc/index.js';
import { type AcpTransportServer, listenAcp } from '../../src/transports/index.js';
import { readSseData } from '../../src/transports/sse-parser.js';

let server: AcpTransportServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Message = Record<string, unknown>;

async function serve(): Promise<AcpTransportServer> {
  const agent = new Agent({
    info: { name: 'acp-kit-test-agent', version: '0.0.0' },
    unstable: true,
    capabilities: { auth: { status: {} } },
    auth: { methods: [{ type: 'agent', methodId: 'reference', name: 'Reference login' }] },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.idle('end_turn');
    },
  });
  server = await listenAcp({ onConnection: (t) => agent.serve(new Connection(t) as AgentConnection) });
  return server;
}

const headers = (extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${server!.token}`,
  ...extra,
});

const post = (body: unknown, extra: Record<string, string> = {}) =>
  fetch(server!.url, {
    method: 'POST',
    headers: headers({ 'Content-Type': 'application/json', ...extra }),
    body: JSON.stringify(body),
  });

/** Opens a stream and collects every message it carries until `close()`. */
async function open(connectionId: string, sessionId?: string) {
  const controller = new AbortController();
  const response = await fetch(server!.url, {
    headers: headers({
      Accept: 'text/event-stream',
      'Acp-Connection-Id': connectionId,
      ...(sessionId === undefined ? {} : { 'Acp-Session-Id': sessionId }),
    }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const seen: Message[] = [];
  const reading = (async () => {
    for await (const data of readSseData(response.body!, 1 << 20)) seen.push(JSON.parse(data));
  })().catch(() => undefined);
  return {
    seen,
    async until(test: (m: Message) => boolean): Promise<Message> {
      await expect.poll(() => seen.find(test), { timeout: 5000 }).toBeDefined();
      return seen.find(test)!;
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}

describe('Streamable HTTP: server-initiated messages that name no session', () => {
  it('sends auth/status_update on the connection stream, and nothing of it on an open session stream', async () => {
    await serve();
    const init = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: 2, info: { name: 'raw-http', version: '0.0.0' } },
    });
    expect(init.status).toBe(200);
    const connectionId = init.headers.get('acp-connection-id')!;
    const main = await open(connectionId);
    const scoped = { 'Acp-Connection-Id': connectionId };
    expect(
      (await post({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } }, scoped)).status,
    ).toBe(202);
    const sessionId = ((await main.until((m) => m.id === 1)).result as { sessionId: string }).sessionId;
    const session = await open(connectionId, sessionId);

    const login = await post(
      { jsonrpc: '2.0', id: 2, method: 'auth/login', params: { methodId: 'reference' } },
      scoped,
    );
    expect(login.status).toBe(202);
    expect(await login.text()).toBe('');
    const update = await main.until((m) => m.method === 'auth/status_update');
    expect(update).toMatchObject({ jsonrpc: '2.0', params: { state: 'authenticated' } });
    expect(update).not.toHaveProperty('id');
    await main.until((m) => m.id === 2);

    // A prompt afterwards: its updates on the session stream, and the status update never there.
    await post(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'session/prompt',
        params: { sessionId, prompt: [{ type: 'text', text: 'hi' }] },
      },
      { ...scoped, 'Acp-Session-Id': sessionId },
    );
    await session.until((m) => m.id === 3);
    expect(session.seen.some((m) => m.method === 'auth/status_update')).toBe(false);
    expect(main.seen.filter((m) => m.method === 'auth/status_update')).toHaveLength(1);
    await session.close();
    await main.close();
  });
});
