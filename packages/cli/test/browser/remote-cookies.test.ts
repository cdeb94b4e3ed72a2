/**
 * The RFD's cookie rule ("clients MUST accept, store, and return cookies set by the server … for the
 * duration of the connection") for the browser client. A page cannot read `Set-Cookie` or write
 * `Cookie` itself: the browser's cookie jar keeps them, and `connectHttp` from
 * `@acp-kit/sdk/browser` sends every request with `credentials: 'include'` so the browser stores
 * the cookie a cross-origin answer sets and returns it. A WebSocket handshake carries the jar's
 * cookies by itself. So this runs the real page in Debian's Chromium against `acp-kit agent
 * --listen` (a child process) through a recording proxy, and checks what the server side received:
 * the affinity cookie set on the first answer comes back on every later request of the connection,
 * and on the next connection's first request (what a load balancer routes on).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningAgent, listeningAgent, requireBuild } from '../harness.js';
import { bundlePage, launchChromium, servePage } from './test-page.js';

/** The affinity cookie value the agent sets (`--affinity`), so the test knows what to look for. */
const AFFINITY = 'acp_affinity=replica-7';

/** One request as the server side of the proxy saw it. */
interface Seen {
  method: string;
  upgrade: boolean;
  cookie: string | undefined;
  status: number | undefined;
  setCookie: string[];
}

/** Forwards HTTP requests and WebSocket upgrades to `target` unchanged, recording each. */
async function recordingProxy(target: URL): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((incoming, outgoing) => {
    const record: Seen = {
      method: incoming.method!,
      upgrade: false,
      cookie: incoming.headers.cookie,
      status: undefined,
      setCookie: [],
    };
    seen.push(record);
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer: IncomingMessage) => {
        record.status = answer.statusCode;
        record.setCookie = answer.headers['set-cookie'] ?? [];
        outgoing.writeHead(answer.statusCode!, answer.headers);
        outgoing.flushHeaders();
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.on('error', () => forward.destroy());
    outgoing.on('close', () => forward.destroy());
    incoming.pipe(forward);
  });
  server.on('upgrade', (incoming: IncomingMessage, client: Socket, head: Buffer) => {
    const record: Seen = {
      method: incoming.method!,
      upgrade: true,
      cookie: incoming.headers.cookie,
      status: undefined,
      setCookie: [],
    };
    seen.push(record);
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
    for (let i = 0; i < incoming.rawHeaders.length; i += 2)
      lines.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    // The answer's head (the 101 and its headers) is read as it passes.
    let answerHead = '';
    upstream.on('data', (chunk: Buffer) => {
      if (record.status !== undefined) return;
      answerHead += chunk.toString('latin1');
      const end = answerHead.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...headers] = answerHead.slice(0, end).split('\r\n');
      record.status = Number(statusLine!.split(' ')[1]);
      record.setCookie = headers
        .filter((line) => line.toLowerCase().startsWith('set-cookie:'))
        .map((line) => line.slice('set-cookie:'.length).trim());
    });
    upstream.pipe(client);
    client.pipe(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end).on('close', end);
    client.on('error', end).on('close', end);
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${target.pathname}`, seen, server };
}

type Profile = 'http' | 'websocket';

let browser: Browser | undefined;
let agent: ListeningAgent | undefined;
let page: { server: Server; origin: string } | undefined;
let proxy: { url: string; seen: Seen[]; server: Server } | undefined;

beforeAll(async () => {
  requireBuild();
  browser = await launchChromium();
  page = await servePage(await bundlePage());
  agent = await listeningAgent([
    '--chunk-delay',
    '0',
    '--allow-origin',
    page.origin,
    '--affinity',
    AFFINITY.split('=')[1]!,
  ]);
  const endpoint = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(agent.stderr())![1]!;
  proxy = await recordingProxy(new URL(endpoint));
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  for (const server of [proxy?.server, page?.server]) {
    server?.closeAllConnections?.();
    await new Promise((resolve) => server?.close(resolve));
  }
});

/** A page in a browser context of its own: a cookie jar that starts empty. */
async function freshPage(): Promise<Page> {
  const context = await browser!.newContext();
  const opened = await context.newPage();
  await opened.goto(`${page!.origin}/`);
  await opened.waitForFunction(() => 'acp' in globalThis);
  return opened;
}

const converse = (on: Page, profile: Profile, text: string) =>
  on.evaluate(
    (args) =>
      (
        globalThis as unknown as {
          acp: { converse(a: unknown): Promise<{ messageId: string; stopReason: string }> };
        }
      ).acp.converse(args),
    {
      profile,
      url: profile === 'http' ? proxy!.url : proxy!.url.replace(/^http/, 'ws'),
      token: agent!.token!,
      text,
    },
  );

/** The requests recorded from `from` on that reached the agent, CORS preflights left out. */
const since = (from: number): Seen[] => proxy!.seen.slice(from).filter((s) => s.method !== 'OPTIONS');

describe('a browser page keeps the server’s cookies and returns them', () => {
  it('over Streamable HTTP: set on the initialize answer, sent on every later request of the connection, DELETE included, and on the next connection', async () => {
    const on = await freshPage();
    const from = proxy!.seen.length;
    const end = await converse(on, 'http', 'hello cookies');
    expect(end.stopReason).toBe('end_turn');
    // client.close() sends the DELETE after the page's call returned.
    await expect
      .poll(() => [since(from).at(-1)?.method, since(from).at(-1)?.status])
      .toEqual(['DELETE', 202]);
    const first = since(from);
    expect(first[0]).toMatchObject({ method: 'POST', cookie: undefined, status: 200 });
    expect(first[0]!.setCookie).toEqual([
      expect.stringMatching(new RegExp(`^${AFFINITY}; Path=/; HttpOnly; SameSite=Lax$`)),
    ]);
    // Both streams, session/new, the prompt and the DELETE.
    expect(first.map((s) => s.method).sort()).toEqual(['DELETE', 'GET', 'GET', 'POST', 'POST', 'POST']);
    expect(first.slice(1).filter((s) => s.cookie !== AFFINITY)).toEqual([]);
    expect(
      first
        .slice(1)
        .map((s) => s.status)
        .sort(),
    ).toEqual([200, 200, 202, 202, 202]);

    // The next connection from the same browser starts with the cookie: a load balancer routes it alike.
    const next = proxy!.seen.length;
    expect((await converse(on, 'http', 'again')).stopReason).toBe('end_turn');
    await expect.poll(() => since(next).at(-1)?.method).toBe('DELETE');
    expect(since(next).filter((s) => s.cookie !== AFFINITY)).toEqual([]);
    await on.context().close();
  });

  it('over WebSocket: set on the 101, sent on the next handshake', async () => {
    const on = await freshPage();
    const from = proxy!.seen.length;
    expect((await converse(on, 'websocket', 'hello cookies')).stopReason).toBe('end_turn');
    expect((await converse(on, 'websocket', 'again')).stopReason).toBe('end_turn');
    const handshakes = since(from);
    expect(handshakes.map((s) => [s.method, s.upgrade, s.status])).toEqual([
      ['GET', true, 101],
      ['GET', true, 101],
    ]);
    expect(handshakes[0]!.cookie).toBeUndefined();
    expect(handshakes[0]!.setCookie).toEqual([expect.stringMatching(new RegExp(`^${AFFINITY};`))]);
    expect(handshakes[1]!.cookie).toBe(AFFINITY);
    await on.context().close();
  });
});
