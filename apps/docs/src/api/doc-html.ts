/**
 * Renders a TSDoc comment as HTML for the API reference: paragraphs, `- ` lists, inline code,
 * bold, Markdown links and `{@link Name}` / `{@link Name | text}` resolved to API pages. The text
 * is escaped first, so a comment can never inject markup.
 */

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Resolves a `{@link}` target (`Name` or `Name.member`) to a URL, or undefined to leave it as code. */
export type LinkResolver = (target: string) => string | undefined;

function inline(text: string, resolve: LinkResolver): string {
  // Code spans first, so nothing inside them is touched by the later rules.
  const codes: string[] = [];
  let out = escapeHtml(text).replace(/`([^`]+)`/g, (_m, code: string) => {
    codes.push(code);
    return `\uE000${codes.length - 1}\uE000`;
  });
  out = out.replace(
    /\{@link\s+([^}|\s]+)(?:\s*\|\s*|\s+)?([^}]*)\}/g,
    (_m, target: string, label: string) => {
      const shown = label.trim() === '' ? `<code>${target}</code>` : label.trim();
      const href = resolve(target);
      return href === undefined ? shown : `<a href="${escapeHtml(href)}">${shown}</a>`;
    },
  );
  out = out.replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+|\/[^)\s]*)\)/g, '<a href="$2">$1</a>');
  out = out.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  return out.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => `<code>${codes[Number(i)] ?? ''}</code>`);
}

/**
 * One line of TSDoc (a summary in a table cell) as inline HTML: code spans, bold, links and
 * `{@link}` targets, with no paragraph around it.
 */
export function inlineDocToHtml(text: string, resolve: LinkResolver): string {
  return inline(text.replace(/\s+/g, ' ').trim(), resolve);
}

/** The comment as block HTML. */
export function docToHtml(doc: string, resolve: LinkResolver): string {
  const blocks = doc.split(/\n\s*\n/).filter((b) => b.trim() !== '');
  return blocks
    .map((block) => {
      const lines = block.split('\n');
      if (lines.every((l) => /^\s*[-*]\s+/.test(l) || /^\s{2,}\S/.test(l))) {
        const items: string[] = [];
        for (const line of lines) {
          if (/^\s*[-*]\s+/.test(line)) items.push(line.replace(/^\s*[-*]\s+/, ''));
          else items[items.length - 1] = `${items[items.length - 1] ?? ''} ${line.trim()}`;
        }
        return `<ul>${items.map((i) => `<li>${inline(i, resolve)}</li>`).join('')}</ul>`;
      }
      if (block.trimStart().startsWith('```')) {
        const code = block.replace(/^\s*```\w*\n?/, '').replace(/\n?```\s*$/, '');
        return `<pre><code>${escapeHtml(code)}</code></pre>`;
      }
      return `<p>${inline(lines.join(' '), resolve)}</p>`;
    })
    .join('\n');
}
