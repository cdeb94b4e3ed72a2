import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const SCHEMA = fileURLToPath(new URL('../../../schema/', import.meta.url));
const PUBLIC = fileURLToPath(new URL('../public/', import.meta.url));
/** Pages visited at once: enough to keep the suite short, few enough for a shared two-core machine. */
const VISIT_CONCURRENCY = 4;

let server: StaticServer;
let chromium: LaunchedBrowser;
let pages: string[];
const visits: Visit[] = [];

/**
 * Records console errors, uncaught exceptions, failed requests, HTTP errors and any request
 * that leaves the local server: the site must work offline, so even a successful remote
 * fetch (a web font, a CDN script) is a problem.
 */
function watch(page: Page, report: (problem: string) => void): void {
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (/^https?:$/.test(url.protocol) && url.origin !== server.origin) {
      report(`remote request: ${request.url()}`);
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'error') report(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => report(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? 'unknown';
    // The browser aborts requests still in flight when a tab moves on to the next page (module
    // preloads on a loaded machine); that is the sweep's doing, not the site's. Any answer the
    // server gave is still checked by the response handler below.
    if (reason === 'net::ERR_ABORTED') return;
    report(`request failed: ${request.url()} (${reason})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) report(`HTTP ${response.status()}: ${response.url()}`);
  });
}

/** Opens a page for a focused test and waits for the network to go quiet. */
async function openPage(path: string, problems: string[]): Promise<Page> {
  const page = await chromium.context.newPage();
  watch(page, (problem) => problems.push(problem));
  await page.goto(server.origin + path, { waitUntil: 'networkidle' });
  return page;
}

beforeAll(async () => {
  assertBuilt();
  pages = await listPages();
  server = await startStaticServer(DIST);
  chromium = await launchChromium();
  // One visit per page feeds both the load check and the link check. A few tabs take turns
  // through the queue; each reports into the problems list of the page it is on.
  const queue = [...pages];
  const visitNext = async (): Promise<void> => {
    let problems: string[] = [];
    const page = await chromium.context.newPage();
    watch(page, (problem) => problems.push(problem));
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      problems = [];
      await page.goto(server.origin + path, { waitUntil: 'load' });
      const links = await page.$$eval('a[href]', (anchors) =>
        anchors.map((a) => (a as HTMLAnchorElement).href),
      );
      visits.push({ path, problems, links });
    }
    await page.close();
  };
  await Promise.all(Array.from({ length: VISIT_CONCURRENCY }, visitNext));
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

  it('has one reference page per definition of every schema version present, plus the playground', async () => {
    expect(pages).toContain('/playground/');
    for (const version of ['v2', 'v1']) {
      const file = join(SCHEMA, version, 'schema.json');
      if (version === 'v2') expect(existsSync(file)).toBe(true);
      if (!existsSync(file)) continue;
      const schema = JSON.parse(await readFile(file, 'utf8')) as { $defs: Record<string, unknown> };
      expect(pages).toContain(`/reference/${version}/`);
      const missing = Object.keys(schema.$defs).filter(
        (name) => !pages.includes(`/reference/${version}/${name}/`),
      );
      expect(missing).toEqual([]);
    }
  });

  it('loads every page offline, without console errors or failed requests', () => {
    expect(visits).toHaveLength(pages.length);
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

  it('renders a definition page with its fields, method and every example file', async () => {
    const problems: string[] = [];
    const page = await openPage('/reference/v2/PromptResponse/', problems);
    const field = page.locator('#field-messageId');
    expect(await field.locator('td').nth(2).textContent()).toBe('required');
    expect(await field.locator('a').getAttribute('href')).toBe('/reference/v2/MessageId/');
    const method = page.locator('table.ref-methods tbody tr').first();
    expect(await method.locator('td code').first().textContent()).toBe('session/prompt');
    expect(await method.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([
      '/reference/v2/PromptRequest/',
      '/reference/v2/PromptResponse/',
    ]);
    const dir = join(SCHEMA, 'v2', 'examples', 'PromptResponse');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    const shown = page.locator('.ref-example');
    expect(await shown.count()).toBe(files.length);
    for (const [i, file] of files.entries()) {
      const text = await shown.nth(i).locator('pre').textContent();
      expect(JSON.parse(text ?? '')).toEqual(JSON.parse(await readFile(join(dir, file), 'utf8')));
    }
    await page.close();
    expect(problems).toEqual([]);
  });

  it('lists the variants of a discriminated union with their tag values', async () => {
    const problems: string[] = [];
    const page = await openPage('/reference/v2/SessionUpdate/', problems);
    const rows = await page.locator('table.ref-variants tbody tr').allInnerTexts();
    expect(rows.some((row) => row.includes('"user_message"') && row.includes('UserMessageUpdate'))).toBe(
      true,
    );
    expect(rows.some((row) => row.includes('"_…"'))).toBe(true);
    expect(await page.locator('.ref-example').count()).toBeGreaterThan(0);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('flags a premature prompt response in the playground, in the table and the diagram', async () => {
    const problems: string[] = [];
    const page = await openPage('/playground/', problems);
    await page.locator('button[data-sample="premature-response"]').click();
    await page.locator('.pg-summary[data-status="fail"]').waitFor();
    const flagged = page.locator('tr[data-flagged="true"]');
    expect(await flagged.count()).toBe(1);
    expect(await flagged.getAttribute('data-line')).toBe('6');
    expect(await flagged.locator('[data-rule]').first().getAttribute('data-rule')).toBe(
      'prompt.user-message.reported',
    );
    expect(await page.locator('figure.pg-diagram svg').textContent()).toContain(
      'prompt.user-message.reported',
    );
    expect(await page.locator('.pg-feed [data-origin="local-pending"]').count()).toBe(1);
    // Opening a file re-checks: the good sample, opened from disk, passes.
    await page.locator('.pg-file input').setInputFiles(join(PUBLIC, 'playground', 'good-session.ndjson'));
    await page.locator('.pg-summary[data-status="pass"]').waitFor();
    await page.close();
    expect(problems).toEqual([]);
  });

  it('accepts a good transcript in the playground and links each prompt to its user message', async () => {
    const problems: string[] = [];
    const page = await openPage('/playground/', problems);
    await page.locator('button[data-sample="good-session"]').click();
    await page.locator('.pg-summary[data-status="pass"]').waitFor();
    expect(await page.locator('tr[data-flagged="true"]').count()).toBe(0);
    const links = await page
      .locator('#msg-5 .pg-links a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(['#msg-7', '#msg-6']);
    expect(await page.locator('.pg-feed [data-origin="agent"]').count()).toBe(4);
    // Pasting text re-checks it: a line that is not JSON is reported, not thrown.
    await page.locator('#pg-input').fill('not json');
    await page.locator('.pg-finding[data-rule="transcript.format"]').waitFor();
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
