/**
 * webStreamTransport in Chromium: a dedicated worker and the page each speak ndjson JSON-RPC over
 * Web Streams made from the worker's messages, with @acp-kit/sdk/browser bundled by esbuild
 * (nothing from Node). Requests go both ways, and an oversized line sent to the worker is answered
 * -32600 (reason oversized) and skipped while the next line is served.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './test-page.js';

const HERE = new URL('./web-stream/', import.meta.url);

async function bundle(file: string): Promise<string> {
  const built = await build({
    entryPoints: [fileURLToPath(new URL(file, HERE))],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  return built.outputFiles[0]!.text;
}

let browser: Browser | undefined;
let server: Server | undefined;
let page: Page;

beforeAll(async () => {
  const files: Record<string, string> = {
    '/page.js': await bundle('page.js'),
    '/worker.js': await bundle('worker.js'),
    '/': '<!doctype html><script type="module" src="/page.js"></script>',
  };
  server = createServer((request, response) => {
    const body = files[request.url ?? ''];
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    const type = request.url === '/' ? 'text/html' : 'text/javascript';
    response.writeHead(200, { 'Content-Type': `${type}; charset=utf-8` }).end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => 'webStreams' in globalThis);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('webStreamTransport in a Chromium worker', () => {
  it('carries requests both ways between the page and a worker', async () => {
    const outcome = await page.evaluate(() =>
      (globalThis as unknown as { webStreams: { connected(): Promise<unknown> } }).webStreams.connected(),
    );
    expect(outcome).toEqual({
      echo: { echoed: { text: 'hello worker' }, in: 'function' },
      asked: 'the page',
    });
  });

  it('answers an oversized line in the worker and serves the next one', async () => {
    const { answers, hugeLength } = (await page.evaluate(() =>
      (globalThis as unknown as { webStreams: { oversized(): Promise<unknown> } }).webStreams.oversized(),
    )) as { answers: Record<string, unknown>[]; hugeLength: number };
    expect(answers[0]).toMatchObject({
      id: 1,
      error: { code: -32600, data: { reason: 'oversized', bytes: hugeLength } },
    });
    expect(answers[1]).toMatchObject({ id: 2, result: { echoed: { after: true } } });
  });
});
