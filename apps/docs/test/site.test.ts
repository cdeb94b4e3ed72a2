import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedBrowser, launchChromium } from './support/browser.ts';
import { ARTIFACTS, assertBuilt, DIST, listPages } from './support/site.ts';
import { resolveSitePath, type StaticServer, startStaticServer } from './support/static-server.ts';

/** What one page visit observed. */
interface Visit {
  readonly path: string;
  readonly problems: string[];
  readonly links: string[];
}

let server: StaticServer;
let chromium: LaunchedBrowser;
let pages: string[];
const visits: Visit[] = [];

/**
 * Records console errors, uncaught exceptions, failed requests, HTTP errors and any request
 * that leaves the local server: the site must work offline, so even a successful remote
 * fetch (a web font, a CDN script) is a problem.
 */
function watch(page: Page, problems: string[]): void {
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (/^https?:$/.test(url.protocol) && url.origin !== server.origin) {
      problems.push(`remote request: ${request.url()}`);
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? 'unknown'})`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
}

async function openPage(path: string, problems: string[]): Promise<Page> {
  const page = await chromium.context.newPage();
  watch(page, problems);
  await page.goto(server.origin + path, { waitUntil: 'networkidle' });
  return page;
}

beforeAll(async () => {
  assertBuilt();
  pages = await listPages();
  server = await startStaticServer(DIST);
  chromium = await launchChromium();
  // One visit per page feeds both the load check and the link check.
  for (const path of pages) {
    const problems: string[] = [];
    const page = await openPage(path, problems);
    const links = await page.$$eval('a[href]', (anchors) =>
      anchors.map((a) => (a as HTMLAnchorElement).href),
    );
    visits.push({ path, problems, links });
    await page.close();
  }
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

describe('the built docs site', () => {
  it('has the guide pages the sidebar promises', () => {
    for (const path of ['/', '/guides/prompt-lifecycle/', '/guides/correlation/', '/project/changelog/']) {
      expect(pages).toContain(path);
    }
  });

  it('loads every page offline, without console errors or failed requests', () => {
    const broken = visits.filter((visit) => visit.problems.length > 0);
    expect(broken.map((visit) => `${visit.path}: ${visit.problems.join('; ')}`)).toEqual([]);
  });

  it('links only to pages and anchors that exist in the build', async () => {
    const missing: string[] = [];
    const checked = new Set<string>();
    for (const visit of visits) {
      for (const href of visit.links) {
        const url = new URL(href);
        if (url.origin !== server.origin || checked.has(href)) continue;
        checked.add(href);
        const file = await resolveSitePath(DIST, url.pathname);
        if (file === undefined) {
          missing.push(`${visit.path} → ${url.pathname}`);
          continue;
        }
        const fragment = decodeURIComponent(url.hash.slice(1));
        if (fragment !== '' && file.endsWith('.html')) {
          const html = await readFile(file, 'utf8');
          if (!html.includes(`id="${fragment}"`)) missing.push(`${visit.path} → ${url.pathname}#${fragment}`);
        }
      }
    }
    expect(checked.size).toBeGreaterThan(pages.length);
    expect(missing).toEqual([]);
  });

  it('draws the lifecycle diagrams as inline svg with a size and an accessible name', async () => {
    const problems: string[] = [];
    const page = await openPage('/guides/prompt-lifecycle/', problems);
    const diagrams = page.locator('figure.sequence-diagram > svg');
    expect(await diagrams.count()).toBeGreaterThanOrEqual(3);
    for (const svg of await diagrams.all()) {
      const box = await svg.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(100);
      expect(box?.height ?? 0).toBeGreaterThan(100);
      const name = await svg.evaluate((el) =>
        (el.getAttribute('aria-labelledby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
      expect(name).toMatch(/session\/prompt/);
      expect(await svg.locator('line.seq-line').count()).toBeGreaterThan(0);
    }
    await page.close();
    expect(problems).toEqual([]);
  });

  it('finds messageId with the built-in search', async () => {
    const problems: string[] = [];
    const page = await openPage('/', problems);
    await page.locator('button[data-open-modal]').first().click();
    const input = page.locator('#starlight__search input[type="text"], #starlight__search input').first();
    await input.fill('messageId');
    const results = page.locator('#starlight__search .pagefind-ui__result-link');
    await results.first().waitFor({ state: 'visible' });
    const hrefs = await results.evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).pathname));
    expect(hrefs).toContain('/guides/correlation/');
    await page.close();
    expect(problems).toEqual([]);
  });

  it('saves a full-page screenshot of the lifecycle guide for review', async () => {
    const problems: string[] = [];
    const page = await openPage('/guides/prompt-lifecycle/', problems);
    await mkdir(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, 'lifecycle.png');
    await page.screenshot({ path: file, fullPage: true });
    await page.close();
    expect((await stat(file)).size).toBeGreaterThan(10_000);
  });
});
