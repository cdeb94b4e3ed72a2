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
 * `llms.txt`: the site's title and summary, then one line per page — a link to its Markdown twin
 * (absolute, under `origin`) with its description — grouped in sections (guides, SDK, reference…).
 */
export function llmsIndex(site: SiteSummary, pages: readonly IndexedPage[]): string {
  const groups = new Map<string, IndexedPage[]>();
  for (const page of pages) {
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
  return lines.join('\n');
}

/** `llms-full.txt`: every page's Markdown, in the order of `llms.txt`, each headed by its URL. */
export function llmsFull(site: SiteSummary, pages: readonly IndexedPage[]): string {
  const ordered = [...pages].sort((a, b) => sectionRank(sectionOf(a.path)) - sectionRank(sectionOf(b.path)));
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
