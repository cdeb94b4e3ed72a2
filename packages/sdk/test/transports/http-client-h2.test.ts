/**
 * The RFD requires HTTP/2 for Streamable HTTP. In Node, `fetch` speaks HTTP/1.1, so `connectHttp`
 * does too unless it is given an h2-capable `fetch`; given one, every request of the connection —
 * initialize, the POSTs, both SSE streams and the closing DELETE — travels as a stream of one HTTP/2
 * session negotiated by ALPN against `listenAcp` over TLS. The `fetch` here is a small adapter over
 * `node:http2`, standing in for any h2 client an application brings.
 */
import {
  type ClientHttp2Session,
  connect as connectH2,
  constants,
  type IncomingHttpHeaders,
} from 'node:http2';
import { Readable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection, ConversationStore } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { type AcpTransportServer, connectHttp, listenAcp } from '../../src/transports/index.js';
import { selfSignedCertificate } from './self-signed.js';

/** Headers HTTP/2 forbids (connection-specific ones). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

/** What one request of {@link h2Fetch} sent and got: its method, `Cookie` and `Set-Cookie`. */
interface Sent {
  method: string;
  cookie: string | null;
  setCookie: string[];
}

/** A `fetch` sending every request as a stream of one HTTP/2 session; records each request. */
function h2Fetch(session: ClientHttp2Session, sent: Sent[]): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init.method ?? 'GET';
    const record: Sent = { method, cookie: new Headers(init.headers).get('cookie'), setCookie: [] };
    sent.push(record);
    const outgoing: Record<string, string> = { ':method': method, ':path': url.pathname + url.search };
    new Headers(init.headers).forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) outgoing[name] = value;
    });
    const body = init.body == null ? undefined : String(init.body);
    const stream = session.request(outgoing, { endStream: body === undefined });
    if (body !== undefined) stream.end(body);
    init.signal?.addEventListener('abort', () => stream.close(constants.NGHTTP2_CANCEL), { once: true });
    const head = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(head)) {
      if (name.startsWith(':') || value === undefined) continue;
      for (const one of [value].flat()) headers.append(name, String(one));
    }
    const status = Number(head[':status']);
    record.setCookie = headers.getSetCookie();
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, headers });
  }) as typeof fetch;
}

let server: AcpTransportServer | undefined;
let h2: ClientHttp2Session | undefined;
afterEach(async () => {
  h2?.destroy();
  h2 = undefined;
  await server?.close();
  server = undefined;
});

describe('connectHttp over HTTP/2', () => {
  let cert = '';
  let key = '';
  beforeAll(() => {
    ({ cert, key } = selfSignedCertificate());
  });

  it('runs a whole connection — initialize, session, prompt with its receipt, the streams, DELETE — on one h2 session, returning the affinity cookie on each request', async () => {
    const agent = new Agent({
      info: { name: 'acp-kit-test-agent', version: '0.0.0' },
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        await (await session.agentMessage()).chunk({ type: 'text', text: 'over h2' });
        await session.idle('end_turn');
      },
    });
    server = await listenAcp({
      tls: { cert, key },
      onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    });
    h2 = connectH2(new URL(server.url).origin, { ca: cert });
    await new Promise((resolve, reject) => {
      h2!.once('connect', resolve);
      h2!.once('error', reject);
    });
    expect(h2.alpnProtocol).toBe('h2');
    const sent: Sent[] = [];
    const methods = (): string[] => sent.map((request) => request.method);
    const store = new ConversationStore();
    const transport = await connectHttp(server.url, { token: server.token!, fetch: h2Fetch(h2, sent) });
    const client = new Client(new Connection(transport) as ClientConnection, {
      info: { name: 'h2-client', version: '0.0.0' },
      store,
    });
    expect(await client.initialize()).toMatchObject({ protocolVersion: 2 });
    const sessionId = await client.newSession('/repo');
    const messageId = await client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await vi.waitFor(() => expect(store.snapshot(sessionId).state.completedTurns).toBe(1), {
      timeout: 10_000,
    });
    const texts = store.snapshot(sessionId).messages.map((m) => [m.messageId, m.content]);
    expect(texts).toEqual([
      [messageId, [{ type: 'text', text: 'hello' }]],
      [expect.any(String), [{ type: 'text', text: 'over h2' }]],
    ]);
    client.close();
    await vi.waitFor(() => expect(methods().at(-1)).toBe('DELETE'), { timeout: 10_000 });
    // Everything went through the h2 session: initialize, both streams, session/new, the prompt.
    expect(methods().filter((m) => m === 'GET')).toHaveLength(2);
    expect(methods().filter((m) => m === 'POST').length).toBeGreaterThanOrEqual(3);
    expect(h2.destroyed).toBe(false);
    // The cookie set on the initialize answer (over h2, with Secure over TLS) comes back on every later request.
    expect(sent[0]).toMatchObject({ method: 'POST', cookie: null });
    expect(sent[0]!.setCookie).toEqual([
      expect.stringMatching(/^acp_affinity=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/),
    ]);
    const cookie = sent[0]!.setCookie[0]!.split(';')[0]!;
    expect(sent.slice(1).filter((request) => request.cookie !== cookie)).toEqual([]);
  });
});
