/**
 * The browser tests' shared pieces: the test page bundled with esbuild (nothing from Node), served
 * on 127.0.0.1 (a port of its own, so an origin of its own; over https when given a certificate),
 * and Debian's Chromium, installed by `scripts/ensure-chromium.sh` when missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ENSURE_CHROMIUM = fileURLToPath(new URL('../../../../scripts/ensure-chromium.sh', import.meta.url));
const PAGE = new URL('./page/', import.meta.url);

/** `page/app.js` bundled for the browser. */
export async function bundlePage(): Promise<string> {
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('app.js', PAGE))],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}

/** Serves the page and its bundle on 127.0.0.1, over https when `tls` is given. */
export async function servePage(
  bundle: string,
  tls?: { cert: string; key: string },
): Promise<{ server: Server; origin: string }> {
  const html = readFileSync(new URL('index.html', PAGE), 'utf8');
  const handler = (request: { url?: string }, response: import('node:http').ServerResponse): void => {
    if (request.url === '/app.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' });
      response.end(bundle);
    } else if (request.url === '/') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(html);
    } else {
      response.writeHead(404);
      response.end();
    }
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scheme = tls ? 'https' : 'http';
  return { server, origin: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Debian's Chromium, headless, with the project's flags plus `extraArgs`. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    const result = spawnSync('sh', [ENSURE_CHROMIUM], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) throw new Error(`${CHROMIUM} is missing and ${ENSURE_CHROMIUM} failed`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      ...extraArgs,
    ],
  });
}
