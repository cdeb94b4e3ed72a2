import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageToMarkdown } from '../src/machine-readable/html-to-markdown.ts';
import { isIndexed, llmsFull, llmsIndex, sitemap } from '../src/machine-readable/llms-text.ts';
import { twinPath } from '../src/machine-readable/twin-path.ts';
import { SITE_URL } from '../src/site.ts';
import { type LaunchedBrowser, launchChromium } from './support/browser.ts';
import { assertBuilt, DIST, listPages } from './support/site.ts';
import { type StaticServer, startStaticServer } from './support/static-server.ts';

/** The file in the build that a site path (of a page or a twin) names. */
const fileOf = (path: string): string => join(DIST, decodeURIComponent(path));

/** Every page of the site, as the indexes must list them (the not-found page is none). */
async function sitePages(): Promise<string[]> {
  return (await listPages()).filter((path) => path !== '/404.html');
}

describe('a page converted to Markdown', () => {
  const html = `<!doctype html><html><head><title>T | acp-kit</title>
    <meta name="description" content="What the page is about."></head><body>
    <nav><a href="/elsewhere/">Sidebar link</a></nav>
    <main><div class="content-panel"><h1 id="_top">Receipts</h1></div>
    <div class="content-panel"><div class="sl-markdown-content">
      <h2 id="why">Why<a class="sl-anchor-link" href="#why"><span aria-hidden="true">#</span></a></h2>
      <p>An answer <strong>after</strong> insertion, see <a href="/guides/x/">the guide</a>.</p>
      <div class="expressive-code"><figure><pre data-language="json"><code><div class="ec-line"><div class="code">{ "messageId": "m1" }</div></div></code></pre>
      <button class="copy" data-code="x">Copy</button></figure></div>
      <table><thead><tr><th>Field</th><th>Type</th></tr></thead><tbody><tr><td><code>messageId</code></td><td>string</td></tr></tbody></table>
    </div></div></main><footer>Footer</footer></body></html>`;

  it('keeps the title, the description and the main content, without navigation or page chrome', () => {
    const page = pageToMarkdown(html);
    expect(page.title).toBe('Receipts');
    expect(page.description).toBe('What the page is about.');
    expect(page.markdown).toMatch(/^# Receipts\n/);
    expect(page.markdown).toContain('## Why\n');
    expect(page.markdown).toContain('An answer **after** insertion, see [the guide](/guides/x/).');
    expect(page.markdown).not.toContain('Sidebar link');
    expect(page.markdown).not.toContain('Footer');
    expect(page.markdown).not.toContain('Copy');
  });

  it('writes code blocks fenced with their language and tables as GFM tables', () => {
    const { markdown } = pageToMarkdown(html);
    expect(markdown).toContain('```json\n{ "messageId": "m1" }\n```');
    expect(markdown).toMatch(/\| Field +\| Type +\|/);
    expect(markdown).toMatch(/\| `messageId` \| string +\|/);
  });

  it('keeps a code block byte-for-byte: an empty line stays one empty line', () => {
    const lines = ['const a = 1;', '', '', 'const b = 2;'];
    const code = lines
      .map((line) => `<div class="ec-line"><div class="code">${line === '' ? '\n' : line}</div></div>`)
      .join('');
    const page = html.replace(
      /<pre data-language="json"><code>.*?<\/code><\/pre>/,
      `<pre data-language="ts"><code>${code}</code></pre>`,
    );
    expect(pageToMarkdown(page).markdown).toContain(`\`\`\`ts\n${lines.join('\n')}\n\`\`\``);
  });

  it('refuses a page without a main element rather than writing an empty twin', () => {
    expect(() => pageToMarkdown('<html><body><p>no main</p></body></html>')).toThrow(/<main>/);
  });
});

describe('the Markdown twin of a page', () => {
  it('sits beside the page folder, with the trailing slash swapped for .md', () => {
    expect(twinPath('/guides/prompt-lifecycle/')).toBe('/guides/prompt-lifecycle.md');
    expect(twinPath('/')).toBe('/index.md');
    expect(twinPath('/reference/v2/PromptResponse/')).toBe('/reference/v2/PromptResponse.md');
  });
});

describe('llms.txt and sitemap.xml, as text', () => {
  const site = { title: 'acp-kit', description: 'The kit.', origin: 'https://docs.example' };
  const pages = [
    { path: '/reference/v2/A/', title: 'A', markdown: '# A\n' },
    { path: '/guides/g/', title: 'G', description: 'A guide\nover two lines.', markdown: '# G\n' },
    { path: '/', title: 'Overview', markdown: '# Overview\n' },
  ];

  it('lists one line per guide under its section and the reference by its index pages, each linking its twin', () => {
    const text = llmsIndex(site, [
      ...pages,
      { path: '/reference/v2/', title: 'v2 schema', markdown: '# v2\n' },
    ]);
    expect(text.startsWith('# acp-kit\n\n> The kit.\n')).toBe(true);
    expect(text).toContain('- [G](https://docs.example/guides/g.md): A guide over two lines.\n');
    expect(text).toContain('- [Overview](https://docs.example/index.md)\n');
    expect(text).toContain('- [v2 schema](https://docs.example/reference/v2.md)\n');
    expect(text).not.toContain('/reference/v2/A');
    expect(text.indexOf('## Guides')).toBeLessThan(text.indexOf('## Reference'));
    expect(text).toContain('## Optional\n\n- [Sitemap](https://docs.example/sitemap.xml)');
    expect(llmsFull(site, pages)).not.toContain('/reference/v2/A/');
    expect(llmsFull(site, pages)).toContain('<!-- https://docs.example/guides/g/ -->');
  });

  it('indexes guides and the reference index pages, not one page per definition or export', () => {
    expect(
      ['/', '/guides/x/', '/sdk/y/', '/reference/cli/', '/api/sdk/', '/reference/v2/'].map(isIndexed),
    ).toEqual([true, true, true, true, true, true]);
    expect(['/reference/v2/PromptResponse/', '/api/sdk/Client/'].map(isIndexed)).toEqual([false, false]);
  });

  it('escapes what XML requires in the sitemap', () => {
    expect(sitemap('https://docs.example', ['/a&b/'])).toContain('<loc>https://docs.example/a&amp;b/</loc>');
  });
});

describe('the built site, for machines', () => {
  beforeAll(() => assertBuilt());

  it('has a Markdown twin beside every page, headed by the page title', async () => {
    const missing: string[] = [];
    for (const path of await sitePages()) {
      const twin = fileOf(twinPath(path));
      if (!existsSync(twin)) {
        missing.push(path);
        continue;
      }
      const markdown = await readFile(twin, 'utf8');
      if (!/^# \S/.test(markdown)) missing.push(`${path} (twin has no title heading)`);
    }
    expect(missing).toEqual([]);
  });

  it('lists every guide and reference index page in llms.txt, in tens of KB, and every link there resolves to a file of the build', async () => {
    const text = await readFile(join(DIST, 'llms.txt'), 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThan(50_000);
    const links = [...text.matchAll(/^- \[[^\]]*\]\(([^)]+)\)/gm)].map((match) => match[1] ?? '');
    const unresolved = links.filter(
      (link) => !link.startsWith(SITE_URL) || !existsSync(fileOf(link.slice(SITE_URL.length))),
    );
    expect(unresolved).toEqual([]);
    const listed = new Set(links.map((link) => link.slice(SITE_URL.length)));
    const unlisted = (await sitePages()).filter(isIndexed).filter((path) => !listed.has(twinPath(path)));
    expect(unlisted).toEqual([]);
  });

  it('holds every page in llms-full.txt and every page in sitemap.xml', async () => {
    const full = await readFile(join(DIST, 'llms-full.txt'), 'utf8');
    const map = await readFile(join(DIST, 'sitemap.xml'), 'utf8');
    const pages = await sitePages();
    expect(pages.filter(isIndexed).filter((path) => !full.includes(`<!-- ${SITE_URL}${path} -->`))).toEqual(
      [],
    );
    expect(pages.filter((path) => !map.includes(`<loc>${SITE_URL}${path}</loc>`))).toEqual([]);
    const guide = await readFile(fileOf('/guides/prompt-lifecycle.md'), 'utf8');
    expect(full).toContain(guide);
    expect(guide).toContain('## Insertion is acceptance');
  });

  it('keeps the code blocks of a twin byte-for-byte: the getting-started examples as the files are', async () => {
    const twin = await readFile(fileOf('/getting-started.md'), 'utf8');
    for (const example of ['first-agent.ts', 'first-client.ts']) {
      const source = await readFile(
        new URL(`../src/examples/getting-started/${example}`, import.meta.url),
        'utf8',
      );
      expect(twin, example).toContain(`\`\`\`ts\n${source.trimEnd()}\n\`\`\``);
    }
  });
});

describe('"Copy page as Markdown" in a browser', () => {
  let server: StaticServer;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    assertBuilt();
    server = await startStaticServer(DIST);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('puts the page’s Markdown twin on the clipboard and says so', async () => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.origin}/guides/prompt-lifecycle/`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Copy page as Markdown' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await readFile(fileOf('/guides/prompt-lifecycle.md'), 'utf8'));
    expect(await page.getByRole('link', { name: 'View as Markdown' }).getAttribute('href')).toBe(
      '/guides/prompt-lifecycle.md',
    );
    expect(errors).toEqual([]);
    await page.close();
  });
});
