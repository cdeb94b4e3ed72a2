import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { pageToMarkdown } from './html-to-markdown.ts';
import { type IndexedPage, llmsFull, llmsIndex, type SiteSummary, sitemap } from './llms-text.ts';
import { pagePathOf, twinPath } from './twin-path.ts';

/** Built HTML files that are not pages of the site (the not-found page). */
const NOT_PAGES = new Set(['404.html']);

/** Every page's HTML file in the build, relative to `dir` with `/` separators, sorted. */
async function builtPages(dir: string): Promise<string[]> {
  const files = (await readdir(dir, { recursive: true })).map(String);
  return files
    .map((file) => file.split(sep).join('/'))
    .filter((file) => file.endsWith('.html') && !NOT_PAGES.has(file))
    .sort();
}

/**
 * After the build, makes the site readable by machines: a Markdown twin beside every page
 * (`/guides/x.md` for `/guides/x/`), `llms.txt` (one line per page, linking its twin),
 * `llms-full.txt` (every page's Markdown) and `sitemap.xml`. The twins are converted from the
 * built HTML, so generated pages (schema and API reference, the CLI reference) have them too.
 */
export function machineReadable(site: SiteSummary): AstroIntegration {
  return {
    name: 'acp-kit:machine-readable',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const out = fileURLToPath(dir);
        const pages: IndexedPage[] = [];
        for (const file of await builtPages(out)) {
          const path = pagePathOf(file);
          const text = pageToMarkdown(await readFile(join(out, file), 'utf8'));
          await writeFile(join(out, twinPath(path)), text.markdown);
          pages.push({ path, ...text });
        }
        await writeFile(join(out, 'llms.txt'), llmsIndex(site, pages));
        await writeFile(join(out, 'llms-full.txt'), llmsFull(site, pages));
        await writeFile(
          join(out, 'sitemap.xml'),
          sitemap(
            site.origin,
            pages.map((page) => page.path),
          ),
        );
        logger.info(`${pages.length} Markdown twins, llms.txt, llms-full.txt and sitemap.xml written`);
      },
    },
  };
}
