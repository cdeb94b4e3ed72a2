/**
 * A real web page in Debian's Chromium against `acp-kit agent --listen` (a child process): served
 * on 127.0.0.1 from an allowed origin, it connects with `connectHttp` and with `connectWebSocket`
 * from `@acp-kit/sdk/browser` (bundled with esbuild, nothing from Node), runs a prompt whose
 * permission request is answered by clicking in the page, and shows the conversation. A page from
 * another origin is refused, so is a wrong token, and no token ever appears in a URL.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { type ListeningAgent, listeningAgent, requireBuild } from '../harness.js';
import { bundlePage, launchChromium, servePage } from './test-page.js';

type Profile = 'http' | 'websocket';
/** How a connection attempt ended, as the page saw it (the error's name, status and cause's name). */
interface Attempt {
  ok: boolean;
  name?: string;
  code?: number;
  status?: number;
  cause?: string;
  message?: string;
}

let browser: Browser | undefined;
let context: BrowserContext;
let agent: ListeningAgent | undefined;
let allowed: { server: Server; origin: string } | undefined;
let foreign: { server: Server; origin: string } | undefined;
let endpoint: Record<Profile, string>;
/** Every URL the browser asked for: requests (fetch, documents, scripts) and WebSocket handshakes. */
const urls: string[] = [];

beforeAll(async () => {
  requireBuild();
  browser = await launchChromium();
  const bundle = await bundlePage();
  allowed = await servePage(bundle);
  foreign = await servePage(bundle);
  agent = await listeningAgent(['--chunk-delay', '0', '--allow-origin', allowed.origin]);
  const http = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(agent.stderr())![1]!;
  endpoint = { http, websocket: http.replace(/^http/, 'ws') };
  context = await browser.newContext();
  context.on('request', (request) => void urls.push(request.url()));
  context.on('page', (page) => page.on('websocket', (socket) => void urls.push(socket.url())));
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  for (const page of [allowed, foreign]) await new Promise((resolve) => page?.server.close(resolve));
});

async function open(origin: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => 'acp' in globalThis);
  return page;
}

const attempt = (page: Page, profile: Profile, token: string): Promise<Attempt> =>
  page.evaluate(
    (args) => (globalThis as unknown as { acp: { attempt(a: unknown): Promise<Attempt> } }).acp.attempt(args),
    {
      profile,
      url: endpoint[profile],
      token,
    },
  );

describe.each<Profile>(['http', 'websocket'])('a page on an allowed origin, over %s', (profile) => {
  it('completes a prompt whose permission request is answered in the page, and shows the conversation', async () => {
    const page = await open(allowed!.origin);
    const turn = page.evaluate(
      (args) =>
        (
          globalThis as unknown as {
            acp: { converse(a: unknown): Promise<{ messageId: string; stopReason: string }> };
          }
        ).acp.converse(args),
      { profile, url: endpoint[profile], token: agent!.token!, text: '/write notes.txt' },
    );
    // The turn waits for the click; a page that fails first fails the test at once.
    await Promise.race([page.locator('#permission button[data-option-id="allow"]').click(), turn]);
    const end = await turn;
    expect(end.stopReason).toBe('end_turn');
    expect(end.messageId).toEqual(expect.any(String));
    await expect
      .poll(() => page.locator('#conversation li').allTextContents())
      .toEqual(['user_message: /write notes.txt', 'agent_message: Permission granted: done.']);
    expect(await page.locator('#permission').textContent()).toBe('');
    await page.close();
  });

  it('is refused with a wrong token (401), as the page sees it and as the agent logs it', async () => {
    const page = await open(allowed!.origin);
    const wrong = `${agent!.token!.slice(0, -4)}abcd`;
    const refusals = agent!.stderr().split('with HTTP 401').length;
    const outcome = await attempt(page, profile, wrong);
    expect(outcome.ok).toBe(false);
    // connectHttp closes the transport with an HttpStatusError; the client's request fails with it as the cause.
    if (profile === 'http') expect(outcome).toMatchObject({ cause: 'HttpStatusError', status: 401 });
    // A browser tells a page nothing about a refused WebSocket handshake but that it failed.
    else expect(outcome).toMatchObject({ name: 'WebSocketHandshakeError', status: 0 });
    await expect.poll(() => agent!.stderr().split('with HTTP 401').length).toBe(refusals + 1);
    expect(agent!.stderr()).not.toContain(wrong);
    await page.close();
  });
});

describe('a page on an origin that is not allowed', () => {
  it.each<Profile>(['http', 'websocket'])(
    'is refused over %s (403), even with the right token',
    async (profile) => {
      const page = await open(foreign!.origin);
      const logged = `refused 127.0.0.1 with HTTP 403 (origin not allowed`;
      const before = agent!.stderr().split(logged).length;
      const outcome = await attempt(page, profile, agent!.token!);
      expect(outcome.ok).toBe(false);
      // The browser reports a refused CORS preflight as a failed fetch and a refused upgrade as a
      // failed handshake; the agent's log names the status and the origin.
      if (profile === 'http')
        expect(outcome).toMatchObject({ cause: 'TypeError', message: 'connection closed: Failed to fetch' });
      else expect(outcome).toMatchObject({ name: 'WebSocketHandshakeError', status: 0 });
      await expect.poll(() => agent!.stderr().split(logged).length).toBe(before + 1);
      expect(agent!.stderr()).toContain(`Origin "${foreign!.origin}"`);
      await page.close();
    },
  );
});

describe('the WebSocket client in the page', () => {
  it('sends every message as a text frame, as the RFD says (servers may drop binary ones)', async () => {
    // A bare WebSocket server that notes how each frame came and answers initialize.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => wss.once('listening', resolve));
    const frames: { binary: boolean; text: string }[] = [];
    wss.on('connection', (socket) => {
      socket.on('message', (data, isBinary) => {
        frames.push({ binary: isBinary, text: String(data) });
        const message = JSON.parse(String(data)) as { id?: unknown; method?: string };
        if (message.method === 'initialize')
          socket.send(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              result: { protocolVersion: 2, info: { name: 'text-frames', version: '0' }, capabilities: {} },
            }),
          );
      });
    });
    try {
      const page = await open(allowed!.origin);
      const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/acp`;
      const outcome = await page.evaluate(
        (args) =>
          (globalThis as unknown as { acp: { attempt(a: unknown): Promise<Attempt> } }).acp.attempt(args),
        { profile: 'websocket', url, token: agent!.token! },
      );
      expect(outcome).toEqual({ ok: true });
      expect(frames.map((frame) => frame.binary)).toEqual([false]);
      expect(JSON.parse(frames[0]!.text)).toMatchObject({ method: 'initialize' });
      await page.close();
    } finally {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => wss.close(resolve));
    }
  });
});

describe('the token', () => {
  it('never appears in a URL the browser asked for', () => {
    // The file's earlier tests made these requests: fetches to /acp and WebSocket handshakes.
    expect(urls.filter((url) => url.startsWith(endpoint.http)).length).toBeGreaterThan(4);
    expect(urls.filter((url) => url.startsWith(endpoint.websocket)).length).toBeGreaterThan(2);
    expect(urls.filter((url) => url.includes(agent!.token!))).toEqual([]);
    expect(urls.filter((url) => url.includes(agent!.token!.slice(0, -4)))).toEqual([]);
  });
});
