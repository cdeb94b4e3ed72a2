import { twinPath } from './twin-path.ts';

/** One page of the site as the machine-readable indexes list it. */
export interface IndexedPage {
  /** The page's site path (`/guides/prompt-lifecycle/`). */
  readonly path: string;
  readonly title: string;
  readonly description?: string;
  /** The page as Markdown (its twin's content). */
  readonly markdown: string;
}

/** What the indexes say about the site itself. */
export interface SiteSummary {
  readonly title: string;
  readonly description: string;
  /** The absolute URL the site is published at, without a trailing slash. */
  readonly origin: string;
}

/** The sections of `llms.txt`, in order, by a page's first path segment. */
const SECTIONS: readonly (readonly [segment: string, heading: string])[] = [
  ['', 'Start here'],
  ['getting-started', 'Start here'],
  ['guides', 'Guides'],
  ['sdk', 'SDK'],
  ['playground', 'Tools'],
  ['reference', 'Reference'],
  ['api', 'API'],
  ['project', 'Project'],
];

function sectionOf(path: string): string {
  const segment = path.split('/')[1] ?? '';
  return SECTIONS.find(([name]) => name === segment)?.[1] ?? 'Other';
}

const sectionRank = (heading: string): number => {
  const index = SECTIONS.findIndex(([, name]) => name === heading);
  return index === -1 ? SECTIONS.length : index;
};

/** A description on one line, without the Markdown link syntax breaking. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * Whether `llms.txt` lists the page: every guide, SDK and project page, but of the generated
 * reference (one page per schema definition and per API export, well over a thousand) only the
 * index pages (`/reference/v2/`, `/api/sdk/`, `/reference/cli/`). The rest are reached from those
 * and each has its Markdown twin.
 */
export function isIndexed(path: string): boolean {
  const segments = path.split('/').filter((segment) => segment !== '');
  const section = segments[0] ?? '';
  return !(section === 'reference' || section === 'api') || segments.length <= 2;
}

/**
 * `llms.txt`, as the convention means it: the site's title and summary, then a concise index — one
 * line per guide (a link to its Markdown twin, absolute under `origin`, with its description) in
 * sections, and the reference by its index pages only ({@link isIndexed}). `llms-full.txt` holds
 * the full text of the same pages.
 */
export function llmsIndex(site: SiteSummary, pages: readonly IndexedPage[]): string {
  const groups = new Map<string, IndexedPage[]>();
  for (const page of pages.filter((p) => isIndexed(p.path))) {
    const heading = sectionOf(page.path);
    groups.set(heading, [...(groups.get(heading) ?? []), page]);
  }
  const lines = [`# ${site.title}`, '', `> ${oneLine(site.description)}`, ''];
  for (const heading of [...groups.keys()].sort((a, b) => sectionRank(a) - sectionRank(b))) {
    lines.push(`## ${heading}`, '');
    for (const page of groups.get(heading) ?? []) {
      const about = page.description === undefined ? '' : `: ${oneLine(page.description)}`;
      lines.push(`- [${oneLine(page.title)}](${site.origin}${twinPath(page.path)})${about}`);
    }
    lines.push('');
  }
  lines.push(
    '## Optional',
    '',
    `- [Sitemap](${site.origin}/sitemap.xml): every page, including one per schema definition and per API export; each page's Markdown twin is its path with the trailing slash replaced by \`.md\``,
    '',
  );
  return lines.join('\n');
}

/** `llms-full.txt`: the Markdown of every page `llms.txt` lists, in its order, each headed by its URL. */
export function llmsFull(site: SiteSummary, pages: readonly IndexedPage[]): string {
  const ordered = pages
    .filter((p) => isIndexed(p.path))
    .sort((a, b) => sectionRank(sectionOf(a.path)) - sectionRank(sectionOf(b.path)));
  const parts = [`# ${site.title}\n\n> ${oneLine(site.description)}\n`];
  for (const page of ordered) parts.push(`<!-- ${site.origin}${page.path} -->\n\n${page.markdown}`);
  return parts.join('\n---\n\n');
}

/** `sitemap.xml`: every HTML page under `origin`. */
export function sitemap(origin: string, paths: readonly string[]): string {
  const xmlText = (text: string): string =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const urls = paths.map((path) => `  <url><loc>${xmlText(origin + path)}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}
