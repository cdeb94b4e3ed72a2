import type { Element, Root } from 'hast';
import { select, selectAll } from 'hast-util-select';
import { toText } from 'hast-util-to-text';
import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { remove } from './remove-nodes.ts';

/** What a built page says about itself, read from its HTML. */
export interface PageText {
  /** The page's heading (its `<h1>`), or its `<title>` when it has none. */
  readonly title: string;
  /** The page's `<meta name="description">`, when it has one. */
  readonly description?: string;
  /** The page's main content as Markdown, starting with its title as a level-1 heading. */
  readonly markdown: string;
}

/** Page chrome inside `<main>` that is no content: anchors, copy buttons, icons, the page's own button. */
const CHROME = [
  '.sl-anchor-link',
  '.copy',
  'button',
  'svg',
  'script',
  'style',
  'template',
  '.pagination-links',
  '.sl-hidden',
  '[aria-hidden="true"]:not(.starlight-aside__title)',
].join(', ');

/**
 * Rewrites Expressive Code's rendered blocks (a `<pre data-language>` whose lines are `div.ec-line`)
 * into the plain `<pre><code class="language-…">` that HTML-to-Markdown conversion understands.
 */
function plainCodeBlocks(main: Element): void {
  for (const pre of selectAll('pre', main)) {
    const language = pre.properties.dataLanguage;
    const lines = selectAll('.ec-line', pre);
    const text =
      lines.length > 0
        ? // An empty line is rendered as a line holding "\n": without it, joining doubled it.
          lines.map((line) => toText(line, { whitespace: 'pre' }).replace(/\n$/, '')).join('\n')
        : toText(pre, { whitespace: 'pre' });
    pre.children = [
      {
        type: 'element',
        tagName: 'code',
        properties:
          typeof language === 'string' && language !== 'plaintext'
            ? { className: [`language-${language}`] }
            : {},
        children: [{ type: 'text', value: text.replace(/\n+$/, '') }],
      },
    ];
  }
}

/** The part of a Starlight page that is its content: the title heading and the Markdown body. */
function contentOf(tree: Root): Element {
  const main = select('main', tree);
  if (main === undefined) throw new Error('the page has no <main> element');
  const title = select('h1', main);
  const body = select('.sl-markdown-content', main) ?? main;
  const children = title !== undefined && body !== main ? [title, body] : [body];
  return { type: 'element', tagName: 'div', properties: {}, children };
}

/**
 * Converts one page of the built site into Markdown: only its main content (no navigation, search
 * or footer), code blocks as fenced blocks with their language, tables as GFM tables, links as they
 * are (site-relative). Pure: the same HTML always gives the same Markdown.
 */
export function pageToMarkdown(html: string): PageText {
  const tree = unified().use(rehypeParse).parse(html);
  const heading = select('main h1', tree);
  const title = (heading ? toText(heading) : toText(select('title', tree) ?? tree)).trim();
  const meta = select('meta[name="description"]', tree);
  const description = typeof meta?.properties.content === 'string' ? meta.properties.content : undefined;
  const content = contentOf(tree);
  remove(content, CHROME);
  plainCodeBlocks(content);
  const root: Root = { type: 'root', children: [content] };
  const processor = unified()
    .use(rehypeRemark)
    // Cells unpadded: aligning the pipes padded every row of a long table to its widest cell, which
    // made the API index twins hundreds of KB of spaces.
    .use(remarkGfm, { tablePipeAlign: false })
    .use(remarkStringify, { bullet: '-', fences: true, rule: '-' });
  const markdown = processor.stringify(processor.runSync(root) as Parameters<typeof processor.stringify>[0]);
  return { title, ...(description === undefined ? {} : { description }), markdown: `${markdown.trim()}\n` };
}
