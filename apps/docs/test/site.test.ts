import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedBrowser, launchChromium } from './support/browser.ts';
import { publishedExports } from './support/exports.ts';
import { ARTIFACTS, assertBuilt, DIST, listPages } from './support/site.ts';
import { resolveSitePath, type StaticServer, startStaticServer } from './support/static-server.ts';

/** What one page visit observed. */
interface Visit {
  readonly path: string;
  readonly problems: string[];
  readonly links: string[];
  /** How many source citations (`.source-cite`) the page carries. */
  readonly citations: number;
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SCHEMA = fileURLToPath(new URL('../../../schema/', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../src/examples/', import.meta.url));
const CLI = join(REPO, 'packages', 'cli', 'bin', 'acp-kit.js');
const run = promisify(execFile);
const PUBLIC = fileURLToPath(new URL('../public/', import.meta.url));
/** Pages visited at once: enough to keep the suite short, few enough for a shared two-core machine. */
const VISIT_CONCURRENCY = 4;

let server: StaticServer;
let chromium: LaunchedBrowser;
let pages: string[];
const visits: Visit[] = [];
/** API item pages checked from their HTML only (see beforeAll). */
const staticVisits: Visit[] = [];

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

/**
 * The internal links of a visit whose page or anchor does not exist in the build. Links already in
 * `checked` are skipped (and every link checked is added to it).
 */
async function brokenLinks(visit: Visit, checked = new Set<string>()): Promise<string[]> {
  const missing: string[] = [];
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
  return missing;
}

beforeAll(async () => {
  assertBuilt();
  pages = await listPages();
  server = await startStaticServer(DIST);
  chromium = await launchChromium();
  // One visit per page feeds both the load check and the link check. A few tabs take turns
  // through the queue; each reports into the problems list of the page it is on. The API item
  // pages (a few hundred, all one template) are visited in the browser one per package; the
  // rest of them have their links read from the built HTML, so the link check still covers them.
  const sampled = new Set<string>();
  const queue = pages.filter((path) => {
    const item = /^\/api\/([^/]+)\/[^/]+\/$/.exec(path);
    if (item === null || !sampled.has(item[1] as string)) {
      if (item !== null) sampled.add(item[1] as string);
      return true;
    }
    return false;
  });
  for (const path of pages.filter((p) => !queue.includes(p))) {
    const file = await resolveSitePath(DIST, path);
    const html = file === undefined ? '' : await readFile(file, 'utf8');
    const links = [...html.matchAll(/<a [^>]*href="([^"]+)"/g)].map(
      (m) => new URL((m[1] as string).replace(/&amp;/g, '&'), server.origin + path).href,
    );
    staticVisits.push({ path, problems: [], links, citations: 0 });
  }
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
      const citations = await page.locator('.source-cite').count();
      visits.push({ path, problems, links, citations });
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
    expect(visits.length + staticVisits.length).toBe(pages.length);
    expect(visits.length).toBeGreaterThan(150);
    const broken = visits.filter((visit) => visit.problems.length > 0);
    expect(broken.map((visit) => `${visit.path}: ${visit.problems.join('; ')}`)).toEqual([]);
  });

  it('links only to pages and anchors that exist in the build', async () => {
    const missing: string[] = [];
    const checked = new Set<string>();
    for (const visit of [...visits, ...staticVisits]) missing.push(...(await brokenLinks(visit, checked)));
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
    const cells = method.locator('td');
    expect(await cells.nth(2).locator('a').getAttribute('href')).toBe('/reference/v2/PromptRequest/');
    expect(await cells.nth(3).locator('a').getAttribute('href')).toBe('/reference/v2/PromptResponse/');
    // session/prompt is gated by the session capability, which initialize's response carries.
    expect(await cells.first().locator('a').getAttribute('href')).toBe('/reference/v2/InitializeResponse/');
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
    // Nothing loaded yet: no empty result headings.
    expect(await page.locator('h2#findings').isVisible()).toBe(false);
    expect(await page.locator('h2#rules').isVisible()).toBe(false);
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
    // Each rule in the rules table links to its row in the published catalog.
    const ruleRows = await page.locator('table.pg-rules tbody tr').count();
    expect(ruleRows).toBeGreaterThan(10);
    expect(await page.locator('table.pg-rules a[href^="/reference/conformance-rules/#rule-"]').count()).toBe(
      ruleRows,
    );
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
    const hrefs = () => results.evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).pathname));
    // The results come a page at a time, ranked: the reference pages of definitions with a messageId
    // field come first, and the more the schema has, the further down the guide is. Load more until
    // it shows or there is nothing more to load.
    const more = page.locator('#starlight__search .pagefind-ui__button');
    for (let pages = 0; pages < 10 && !(await hrefs()).includes('/guides/correlation/'); pages++) {
      if ((await more.count()) === 0) break;
      const shown = (await hrefs()).length;
      await more.first().click();
      await page.waitForFunction(
        (before) => document.querySelectorAll('#starlight__search .pagefind-ui__result-link').length > before,
        shown,
      );
    }
    expect(await hrefs()).toContain('/guides/correlation/');
    await page.close();
    expect(problems).toEqual([]);
  });

  it('cites a source in every guide, and every numbered rule of the lifecycle and replay pages', async () => {
    const guides = visits.filter((visit) => visit.path.startsWith('/guides/'));
    expect(guides.length).toBeGreaterThanOrEqual(7);
    expect(guides.filter((visit) => visit.citations === 0).map((visit) => visit.path)).toEqual([]);
    for (const path of ['/guides/prompt-lifecycle/', '/guides/session-resume/']) {
      const problems: string[] = [];
      const page = await openPage(path, problems);
      // The first ordered list after the "The rules" heading: each item is one rule and cites its source.
      const uncited = await page.evaluate(() => {
        const heading = document.getElementById('the-rules');
        let node = heading?.closest('.sl-heading-wrapper') ?? heading;
        while (node && node.tagName !== 'OL') node = node.nextElementSibling;
        if (!node) return ['no rule list'];
        const items = [...node.querySelectorAll(':scope > li')];
        if (items.length < 5) return [`only ${items.length} rules`];
        return items
          .filter((li) => li.querySelector('.source-cite') === null)
          .map((li) => li.textContent ?? '');
      });
      expect(uncited, path).toEqual([]);
      await page.close();
      expect(problems).toEqual([]);
    }
  }, 180_000);

  it('shows every participant of every guide diagram on a 390 px screen, or a visible cue to scroll to it', async () => {
    const problems: string[] = [];
    const page = await chromium.context.newPage();
    watch(page, (problem) => problems.push(problem));
    await page.setViewportSize({ width: 390, height: 844 });
    let checked = 0;
    for (const path of pages.filter((p) => p.startsWith('/guides/'))) {
      await page.goto(server.origin + path, { waitUntil: 'load' });
      for (const figure of await page.locator('figure.sequence-diagram').all()) {
        checked += 1;
        const id = await figure.getAttribute('data-diagram');
        const hidden = async () =>
          figure.locator('rect.seq-participant').evaluateAll((rects) =>
            rects
              .map((r) => r.getBoundingClientRect())
              .filter((box) => box.left < 0 || box.right > window.innerWidth)
              .map((box) => Math.round(box.left)),
          );
        const offscreen = await hidden();
        if (offscreen.length === 0) continue;
        // Not all in view: the figure must say so and scroll sideways to the rest.
        await figure.scrollIntoViewIfNeeded();
        const hint = figure.locator('.seq-scroll-hint');
        expect(await hint.isVisible(), `${path} ${id}: scroll hint`).toBe(true);
        const hintBox = await hint.boundingBox();
        expect(hintBox !== null && hintBox.x >= 0 && hintBox.x + hintBox.width <= 390, `${path} ${id}`).toBe(
          true,
        );
        const scroller = figure;
        await scroller.evaluate((el) => {
          el.scrollLeft = el.scrollWidth;
        });
        if (id === 'diagram-two-clients') {
          await mkdir(ARTIFACTS, { recursive: true });
          await figure.screenshot({ path: join(ARTIFACTS, 'two-clients-390-scrolled.png') });
        }
        // Scrolled to the end, the participants that were cut off on the right are in view.
        const stillHidden = await figure
          .locator('rect.seq-participant')
          .evaluateAll(
            (rects) =>
              rects.map((r) => r.getBoundingClientRect()).filter((box) => box.right > window.innerWidth + 1)
                .length,
          );
        expect(stillHidden, `${path} ${id}`).toBe(0);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(5);
    await page.goto(`${server.origin}/guides/correlation/`, { waitUntil: 'load' });
    await mkdir(ARTIFACTS, { recursive: true });
    await page.locator('figure[data-diagram="diagram-two-clients"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'correlation-390.png') });
    await page.close();
    expect(problems).toEqual([]);
  }, 180_000);

  it('shows on the getting-started page exactly the example files the test suite runs', async () => {
    const problems: string[] = [];
    const page = await openPage('/getting-started/', problems);
    for (const file of ['first-agent.ts', 'first-client.ts']) {
      const frame = page.locator('figure.frame', {
        has: page.locator(`figcaption .title:text-is("${file}")`),
      });
      expect(await frame.count(), file).toBe(1);
      const shown = await frame
        .locator('pre code')
        .evaluate((code) =>
          [...code.querySelectorAll('.ec-line')]
            .map((line) => (line.textContent ?? '').replace(/\n$/, ''))
            .join('\n'),
        );
      const source = await readFile(join(EXAMPLES, 'getting-started', file), 'utf8');
      expect(shown.trimEnd()).toBe(source.trimEnd());
    }
    // test/getting-started.test.ts is what runs them.
    const runner = await readFile(
      fileURLToPath(new URL('./getting-started.test.ts', import.meta.url)),
      'utf8',
    );
    expect(runner).toContain('first-agent.ts');
    expect(runner).toContain('first-client.ts');
    await page.close();
    expect(problems).toEqual([]);
  });

  it('draws the diagram of every v2 method guide, and shows its example files exactly as the test suite runs them', async () => {
    // Each guide, the diagrams it must draw, and the example files (src/examples/guides/) it shows.
    const guides: Record<string, { diagrams: string[]; files: string[] }> = {
      '/guides/session-setup/': {
        diagrams: ['diagram-session-lifetime'],
        files: ['session-setup-agent.ts', 'session-setup-client.ts'],
      },
      '/guides/authentication/': {
        diagrams: ['diagram-auth-before-session'],
        files: ['auth-agent.ts', 'auth-client.ts'],
      },
      '/guides/config-options/': {
        diagrams: ['diagram-config-option-change'],
        files: ['config-options-agent.ts', 'config-options-client.ts'],
      },
      '/guides/elicitation/': {
        diagrams: ['diagram-elicitation'],
        files: ['elicitation-agent.ts', 'elicitation-client.ts'],
      },
      '/guides/tool-calls-and-terminals/': {
        diagrams: ['diagram-tool-call-terminal'],
        files: ['tool-calls-agent.ts', 'tool-calls-client.ts'],
      },
      '/guides/cancellation/': {
        diagrams: ['diagram-cancellation'],
        files: ['cancellation-agent.ts', 'cancellation-client.ts'],
      },
      '/guides/background-work/': {
        diagrams: ['diagram-background-work'],
        files: ['background-work-agent.ts', 'background-work-client.ts'],
      },
      '/guides/version-negotiation/': {
        diagrams: ['diagram-version-negotiation'],
        files: ['serve-both-versions.ts', 'serve-both-versions-websocket.ts', 'connect-any-version.ts'],
      },
    };
    // The test files that run the guides' examples (each imports or spawns the files it runs).
    const runner = (
      await Promise.all(
        ['./guide-examples.test.ts', './version-negotiation.test.ts'].map((test) =>
          readFile(fileURLToPath(new URL(test, import.meta.url)), 'utf8'),
        ),
      )
    ).join('\n');
    const shownAnywhere = new Set<string>();
    const problems: string[] = [];
    const page = await chromium.context.newPage();
    watch(page, (problem) => problems.push(problem));
    for (const [path, expected] of Object.entries(guides)) {
      // Visited by the sweep, in the sidebar, and every internal link and anchor on it exists.
      const visit = visits.find((v) => v.path === path);
      expect(visit, path).toBeDefined();
      if (visit === undefined) continue;
      const internal = visit.links.filter((href) => new URL(href).origin === server.origin);
      expect(internal.length, path).toBeGreaterThan(20);
      expect(await brokenLinks(visit), path).toEqual([]);
      expect(visit.citations, path).toBeGreaterThan(0);
      await page.goto(server.origin + path, { waitUntil: 'load' });
      expect(
        await page.locator(`nav[aria-label="Main"] a[href="${path}"]`).count(),
        `${path} in the sidebar`,
      ).toBe(1);
      for (const id of expected.diagrams) {
        const svg = page.locator(`figure.sequence-diagram[data-diagram="${id}"] > svg`);
        expect(await svg.count(), `${path} ${id}`).toBe(1);
        const box = await svg.boundingBox();
        expect(box?.width ?? 0, `${path} ${id}`).toBeGreaterThan(100);
        expect(box?.height ?? 0, `${path} ${id}`).toBeGreaterThan(100);
        expect(await svg.locator('line.seq-line').count(), `${path} ${id}`).toBeGreaterThan(2);
        expect(await svg.locator('title').first().textContent(), `${path} ${id}`).not.toBe('');
      }
      for (const file of expected.files) {
        const frame = page.locator('figure.frame', {
          has: page.locator(`figcaption .title:text-is("${file}")`),
        });
        expect(await frame.count(), `${path} ${file}`).toBe(1);
        const shown = await frame
          .locator('pre code')
          .evaluate((code) =>
            [...code.querySelectorAll('.ec-line')]
              .map((line) => (line.textContent ?? '').replace(/\n$/, ''))
              .join('\n'),
          );
        const source = await readFile(join(EXAMPLES, 'guides', file), 'utf8');
        expect(shown.trimEnd(), `${path} ${file}`).toBe(source.trimEnd());
        // A guide test imports (or spawns) the file, so the suite runs what the page shows.
        expect(runner, file).toContain(`../src/examples/guides/${file}`);
        shownAnywhere.add(file);
      }
    }
    await page.close();
    // Every example file of the guides is shown on a page.
    const files = (await readdir(join(EXAMPLES, 'guides'))).filter((f) => f.endsWith('.ts'));
    expect(files.filter((f) => !shownAnywhere.has(f))).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  it('has an API reference page for every export of every published package', async () => {
    const entries = publishedExports(REPO);
    expect(entries.some((e) => e.specifier === '@acp-kit/sdk')).toBe(true);
    const problems: string[] = [];
    const missing: string[] = [];
    let checked = 0;
    const page = await chromium.context.newPage();
    watch(page, (problem) => problems.push(problem));
    for (const slug of [...new Set(entries.map((e) => e.slug))]) {
      await page.goto(`${server.origin}/api/${slug}/`, { waitUntil: 'load' });
      const linked = new Map(
        await page
          .locator('table.api-exports a')
          .evaluateAll((as) => as.map((a) => [a.textContent ?? '', (a as HTMLAnchorElement).href] as const)),
      );
      for (const entry of entries.filter((e) => e.slug === slug)) {
        for (const name of entry.names) {
          checked += 1;
          const href = linked.get(name);
          if (href === undefined) {
            missing.push(`${entry.specifier}: ${name} not listed`);
            continue;
          }
          const url = new URL(href);
          const file = await resolveSitePath(DIST, url.pathname);
          const html = file === undefined ? '' : await readFile(file, 'utf8');
          const fragment = decodeURIComponent(url.hash.slice(1));
          const documented =
            fragment !== ''
              ? html.includes(`id="${fragment}"`)
              : new RegExp(`<h1 id="_top"[^>]*>${name.replace(/\$/g, '\\$')}</h1>`).test(html);
          if (!documented) missing.push(`${entry.specifier}: ${name} → ${url.pathname}${url.hash}`);
        }
      }
    }
    await page.close();
    expect(checked).toBeGreaterThan(200);
    expect(missing).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  it('renders the TSDoc of the API package pages (links, code) in export tables that fit at 1280 and 390 px', async () => {
    const problems: string[] = [];
    const page = await chromium.context.newPage();
    watch(page, (problem) => problems.push(problem));
    const overflowing: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const slug of ['sdk', 'schema']) {
        await page.goto(`${server.origin}/api/${slug}/`, { waitUntil: 'load' });
        const summaries = page.locator('table.api-exports td:nth-child(3)');
        const texts = await summaries.allInnerTexts();
        expect(texts.length, slug).toBeGreaterThan(20);
        expect(
          texts.filter((text) => text.includes('{@link') || text.includes('`')),
          slug,
        ).toEqual([]);
        expect(await summaries.locator('code').count(), slug).toBeGreaterThan(10);
        expect(await summaries.locator('a[href^="/api/"]').count(), slug).toBeGreaterThan(5);
        const tables = await page.locator('table.api-exports').evaluateAll((all) =>
          all.map((table) => {
            const column = (table.closest('.sl-markdown-content') ?? document.body).getBoundingClientRect();
            const box = table.getBoundingClientRect();
            return {
              scroll: table.scrollWidth,
              client: table.clientWidth,
              right: box.right,
              limit: column.right,
            };
          }),
        );
        tables.forEach((t, i) => {
          if (t.scroll > t.client + 1 || t.right > t.limit + 1)
            overflowing.push(`/api/${slug}/ table ${i} at ${width} px: ${JSON.stringify(t)}`);
        });
        // Not on the registry yet (version 0.0.0): the install box must not offer an npm install that 404s.
        const install = (await page.locator('#install ~ pre').first().textContent()) ?? '';
        expect(install, slug).not.toMatch(/npm install @acp-kit/);
        expect(install, slug).toContain(`npm run pack -- ${slug}`);
      }
    }
    await page.close();
    expect(overflowing).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  it('says on the first screen of the landing page what acp-kit adds over the official SDK', async () => {
    const problems: string[] = [];
    const page = await chromium.context.newPage();
    watch(page, (problem) => problems.push(problem));
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.origin}/`, { waitUntil: 'load' });
    // The first table of the page, led by the paragraph the getting-started page links to.
    expect(await page.locator('#over-the-official-sdk').count()).toBe(1);
    const table = page.locator('main table').first();
    const box = await table.boundingBox();
    expect(box !== null && box.y + box.height <= 800, JSON.stringify(box)).toBe(true);
    expect(await table.locator('th').allInnerTexts()).toEqual(['', 'Official SDK', 'acp-kit']);
    const link = page.locator('main a[href="/sdk/coming-from-the-official-sdk/"]').first();
    expect(((await link.boundingBox())?.y ?? Number.POSITIVE_INFINITY) < 800).toBe(true);
    await page.close();
    expect(problems).toEqual([]);
  }, 60_000);

  it('prints on the CLI reference exactly what `acp-kit --help` and each command `--help` print', async () => {
    const problems: string[] = [];
    const page = await openPage('/reference/cli/', problems);
    const blocks = await page
      .locator('pre.cli-usage')
      .evaluateAll((pres) =>
        pres.map((pre) => [pre.getAttribute('data-args') ?? '', pre.textContent ?? ''] as const),
      );
    expect(blocks.map(([args]) => args)).toContain('--help');
    for (const [args, shown] of blocks) {
      const { stdout } = await run(process.execPath, [CLI, ...args.split(' ')]);
      expect(shown, `acp-kit ${args}`).toBe(stdout);
    }
    // Every command the usage lists has a section.
    const { stdout } = await run(process.execPath, [CLI, '--help']);
    const commands = [...stdout.matchAll(/^ {2}([a-z][\w-]*)\b/gm)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThanOrEqual(4);
    for (const command of commands)
      expect(await page.locator(`#command-${command}`).count(), command).toBe(1);
    await page.close();
    expect(problems).toEqual([]);
  }, 180_000);

  it('gives v1 and v2 reference pages distinct titles, and every page an edit link and the repository link', async () => {
    const problems: string[] = [];
    const page = await openPage('/reference/v1/PromptResponse/', problems);
    const v1 = await page.title();
    await page.goto(`${server.origin}/reference/v2/PromptResponse/`, { waitUntil: 'load' });
    const v2 = await page.title();
    expect(v1).toContain('ACP v1');
    expect(v2).toContain('ACP v2');
    await page.goto(`${server.origin}/guides/correlation/`, { waitUntil: 'load' });
    expect(
      await page
        .locator('a[href*="/edit/"][href$="apps/docs/src/content/docs/guides/correlation.mdx"]')
        .count(),
    ).toBe(1);
    expect(await page.locator('header a[href^="https://github.com/"]').count()).toBeGreaterThan(0);
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
