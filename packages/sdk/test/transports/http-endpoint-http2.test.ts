/**
 * The RFD requires HTTP/2 for Streamable HTTP: `listenAcp` serves h2 over TLS (chosen by ALPN) and
 * h2c with prior knowledge in cleartext, while HTTP/1.1 (Node's fetch) and WebSocket keep working
 * on the same port. One HTTP/2 session carries the POSTs and both SSE streams at once.
 */
import { request as httpsRequest } from 'node:https';
import { type ClientHttp2Session, connect as connectH2 } from 'node:http2';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import {
  type AcpServerOptions,
  type AcpTransportServer,
  connectWebSocket,
  listenAcp,
} from '../../src/transports/index.js';
import { readSseData } from '../../src/transports/sse-parser.js';
import { selfSignedCertificate } from './self-signed.js';

function echoAgent(): Agent {
  return new Agent({
    info: { name: 'acp-kit-test-agent', version: '0.0.0' },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: 'over h2' });
      await session.idle('end_turn');
    },
  });
}

let server: AcpTransportServer | undefined;
let h2: ClientHttp2Session | undefined;
afterEach(async () => {
  h2?.destroy();
  h2 = undefined;
  await server?.close();
  server = undefined;
});

async function serve(options: Partial<AcpServerOptions> = {}): Promise<AcpTransportServer> {
  const agent = echoAgent();
  server = await listenAcp({
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    ...options,
  });
  return server;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 2, info: { name: 'h2', version: '0.0.0' } },
});

/** One HTTP/2 request; resolves with the status, headers and (unless `stream`) the body. */
function h2Request(
  session: ClientHttp2Session,
  headers: Record<string, string>,
  body?: string,
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  body: string;
  events?: AsyncGenerator<string>;
}> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': '/acp', authorization: `Bearer ${server!.token}`, ...headers });
    stream.once('error', reject);
    stream.once('response', (responseHeaders) => {
      const status = Number(responseHeaders[':status']);
      if (headers.accept === 'text/event-stream' && status === 200) {
        let open = true;
        const web = new ReadableStream<Uint8Array>({
          start(controller) {
            stream.on('data', (chunk: Buffer) => open && controller.enqueue(new Uint8Array(chunk)));
            stream.once('end', () => open && controller.close());
          },
          cancel() {
            open = false;
            stream.close();
          },
        });
        resolve({ status, headers: responseHeaders, body: '', events: readSseData(web, 1 << 20) });
        return;
      }
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        text += chunk;
      });
      stream.once('end', () => resolve({ status, headers: responseHeaders, body: text }));
    });
    if (body !== undefined) stream.end(body);
    else stream.end();
  });
}

/** initialize → connection stream → session/new → session stream → prompt, all on one HTTP/2 session. */
async function lifecycleOver(session: ClientHttp2Session): Promise<string[]> {
  const post = (body: object, extra: Record<string, string> = {}) =>
    h2Request(
      session,
      { ':method': 'POST', 'content-type': 'application/json', ...extra },
      JSON.stringify(body),
    );
  const init = await h2Request(
    session,
    { ':method': 'POST', 'content-type': 'application/json' },
    INITIALIZE,
  );
  expect(init.status).toBe(200);
  const connectionId = init.headers['acp-connection-id'] as string;
  expect(connectionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const main = await h2Request(session, {
    ':method': 'GET',
    accept: 'text/event-stream',
    'acp-connection-id': connectionId,
  });
  expect(main.status).toBe(200);
  expect(
    (
      await post(
        { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/r' } },
        { 'acp-connection-id': connectionId },
      )
    ).status,
  ).toBe(202);
  const created = JSON.parse((await main.events!.next()).value as string);
  const sessionId = created.result.sessionId as string;
  const scoped = await h2Request(session, {
    ':method': 'GET',
    accept: 'text/event-stream',
    'acp-connection-id': connectionId,
    'acp-session-id': sessionId,
  });
  const headers = { 'acp-connection-id': connectionId, 'acp-session-id': sessionId };
  const prompt = {
    jsonrpc: '2.0',
    id: 2,
    method: 'session/prompt',
    params: { sessionId, prompt: [{ type: 'text', text: 'hi' }] },
  };
  expect((await post(prompt, headers)).status).toBe(202);
  const seen: string[] = [];
  for await (const data of scoped.events!) {
    seen.push(data);
    if (data.includes('"state":"idle"')) break;
  }
  return seen;
}

describe('HTTP/2 without TLS (h2c, prior knowledge)', () => {
  it('runs initialize, both streams and a prompt multiplexed on one HTTP/2 session', async () => {
    await serve();
    h2 = connectH2(server!.url.replace('/acp', ''));
    const seen = await lifecycleOver(h2);
    expect(seen.some((data) => data.includes('"id":2'))).toBe(true);
    expect(seen.some((data) => data.includes('over h2'))).toBe(true);
  });

  it('answers a refused request with its status over HTTP/2 too (401, 413 without a Connection header)', async () => {
    await serve({ maxMessageBytes: 256 });
    h2 = connectH2(server!.url.replace('/acp', ''));
    const unauthorized = await h2Request(
      h2,
      { ':method': 'POST', 'content-type': 'application/json', authorization: 'Bearer nope-nope-nope-nope' },
      INITIALIZE,
    );
    expect(unauthorized.status).toBe(401);
    const large = await h2Request(
      h2,
      { ':method': 'POST', 'content-type': 'application/json' },
      'x'.repeat(1024),
    );
    expect(large.status).toBe(413);
    expect(large.headers.connection).toBeUndefined();
  });
});

describe('over TLS', () => {
  let cert = '';
  let key = '';
  beforeAll(() => {
    ({ cert, key } = selfSignedCertificate());
  });

  it('negotiates h2 by ALPN and runs the lifecycle on one session', async () => {
    await serve({ tls: { cert, key } });
    expect(server!.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/acp$/);
    h2 = connectH2(server!.url.replace('/acp', ''), { ca: cert });
    await new Promise((resolve) => h2!.once('connect', resolve));
    expect(h2.alpnProtocol).toBe('h2');
    expect((await lifecycleOver(h2)).some((data) => data.includes('over h2'))).toBe(true);
  });

  it('still serves HTTP/1.1 and wss:// on the same port', async () => {
    await serve({ tls: { cert, key } });
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpsRequest(
        server!.url,
        {
          method: 'POST',
          ca: cert,
          headers: { authorization: `Bearer ${server!.token}`, 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.once('error', reject);
      request.end(INITIALIZE);
    });
    expect(status).toBe(200);
    const client = new Client(
      new Connection(
        await connectWebSocket(server!.webSocketUrl, { token: server!.token!, ca: cert }),
      ) as ClientConnection,
      {
        info: { name: 'wss', version: '0.0.0' },
      },
    );
    expect(await client.initialize()).toMatchObject({ protocolVersion: 2 });
    client.close();
  });
});
