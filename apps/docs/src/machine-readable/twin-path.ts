/**
 * The URL path of a page's Markdown twin: `/guides/prompt-lifecycle/` → `/guides/prompt-lifecycle.md`,
 * `/` → `/index.md`. The twin sits beside the page's folder, so a reader swaps the trailing slash
 * for `.md`.
 */
export function twinPath(pagePath: string): string {
  if (!pagePath.startsWith('/')) throw new Error(`not a site path: ${pagePath}`);
  if (pagePath === '/') return '/index.md';
  const trimmed = pagePath.endsWith('/') ? pagePath.slice(0, -1) : pagePath.replace(/\.html$/, '');
  return `${trimmed}.md`;
}

/**
 * The site path of a built HTML file, relative to the output folder with `/` separators
 * (`guides/x/index.html` → `/guides/x/`, `404.html` → `/404.html`).
 */
export function pagePathOf(relativeFile: string): string {
  const path = `/${relativeFile}`;
  return path.endsWith('/index.html') ? path.slice(0, -'index.html'.length) : path;
}
