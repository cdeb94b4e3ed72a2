/**
 * A page served over https from the agent's own host, in Debian's Chromium, against
 * `acp-kit agent --listen --tls-cert … --tls-key …`: the browser's own `fetch` speaks HTTP/2 to the
 * endpoint (ALPN), as the RFD requires of Streamable HTTP, with no adapter, and it keeps the
 * `Secure` affinity cookie the `initialize` answer sets and returns it on every later request of
 * the connection. The certificate is a throwaway self-signed one that Chromium is told to trust by
 * its key (`--ignore-certificate-errors-spki-list`, nothing else); what went over the wire is read
 * from the browser's network events (the protocol, the `Cookie` sent and the `Set-Cookie` got).
 */
import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningAgent, listeningAgent, requireBuild, tempDir } from '../harness.js';
import { bundlePage, launchChromium, servePage } from './test-page.js';

const AFFINITY = 'acp_affinity=replica-9';
const temp = tempDir();

let browser: Browser | undefined;
let agent: ListeningAgent | undefined;
let page: { server: Server; origin: string } | undefined;
let endpoint = '';

beforeAll(async () => {
  requireBuild();
  const cert = join(temp.dir, 'cert.pem');
  const key = join(temp.dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const tls = { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  const spki = createHash('sha256')
    .update(createPublicKey(tls.cert).export({ type: 'spki', format: 'der' }))
    .digest('base64');
  browser = await launchChromium([`--ignore-certificate-errors-spki-list=${spki}`]);
  page = await servePage(await bundlePage(), tls);
  agent = await listeningAgent([
    '--chunk-delay',
    '0',
    '--tls-cert',
    cert,
    '--tls-key',
    key,
    '--allow-origin',
    page.origin,
    '--affinity',
    AFFINITY.split('=')[1]!,
  ]);
  endpoint = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(agent.stderr())![1]!;
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await new Promise((resolve) => page?.server.close(resolve));
  temp.cleanup();
});

/** One exchange with the endpoint as the browser's network layer saw it. */
interface Exchange {
  method: string;
  cookie: string | undefined;
  setCookie: string | undefined;
  status: number;
  /** Whether the headers below were read yet. */
  read?: boolean;
}

describe('a page served over https on the agent’s host', () => {
  it('reaches the endpoint over HTTP/2 and keeps and returns the Secure affinity cookie', async () => {
    expect(endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/acp$/);
    const context = await browser!.newContext();
    const opened = await context.newPage();
    const protocols = new Map<string, string>();
    const cdp = await context.newCDPSession(opened);
    await cdp.send('Network.enable');
    cdp.on('Network.responseReceived', (event) => {
      if (event.response.url === endpoint) protocols.set(event.requestId, event.response.protocol ?? '');
    });
    const exchanges: Exchange[] = [];
    context.on('response', async (response) => {
      const request = response.request();
      if (request.url() !== endpoint || request.method() === 'OPTIONS') return;
      // Recorded in the order the responses came; the headers are filled in as they are read.
      const exchange: Exchange = {
        method: request.method(),
        cookie: undefined,
        setCookie: undefined,
        status: response.status(),
      };
      exchanges.push(exchange);
      exchange.cookie = (await request.allHeaders()).cookie;
      exchange.setCookie = (await response.allHeaders())['set-cookie'];
      exchange.read = true;
    });
    await opened.goto(`${page!.origin}/`);
    await opened.waitForFunction(() => 'acp' in globalThis);

    const end = await opened.evaluate(
      (args) =>
        (
          globalThis as unknown as {
            acp: { converse(a: unknown): Promise<{ messageId: string; stopReason: string }> };
          }
        ).acp.converse(args),
      { profile: 'http', url: endpoint, token: agent!.token!, text: 'over h2' },
    );
    expect(end.stopReason).toBe('end_turn');
    // client.close() sends the DELETE after the page's call returned.
    await expect.poll(() => exchanges.at(-1)?.method).toBe('DELETE');
    await expect.poll(() => exchanges.every((e) => e.read)).toBe(true);

    // Every exchange with the endpoint (preflights included) went over HTTP/2.
    expect(protocols.size).toBeGreaterThanOrEqual(6);
    expect(new Set(protocols.values())).toEqual(new Set(['h2']));
    expect(exchanges[0]).toMatchObject({ method: 'POST', cookie: undefined, status: 200 });
    expect(exchanges[0]!.setCookie).toBe(`${AFFINITY}; Path=/; HttpOnly; SameSite=Lax; Secure`);
    // Both streams, session/new, the prompt and the DELETE: each carries the cookie.
    expect(exchanges.map((e) => e.method).sort()).toEqual(['DELETE', 'GET', 'GET', 'POST', 'POST', 'POST']);
    expect(exchanges.slice(1).filter((e) => e.cookie !== AFFINITY)).toEqual([]);
    await context.close();
  });
});
