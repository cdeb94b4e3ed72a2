import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** A guide or SDK page that mentions a name. */
export interface GuideRef {
  readonly title: string;
  readonly href: string;
}

function pagesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => /\.mdx?$/.test(file))
    .sort()
    .map((file) => join(dir, file));
}

function hrefOf(contentDir: string, file: string): string {
  const path = relative(contentDir, file)
    .split(sep)
    .join('/')
    .replace(/\.mdx?$/, '');
  if (path === 'index') return '/';
  return `/${path.replace(/\/index$/, '')}/`;
}

/** Identifiers a page shows: inline code, JSON snippet titles, and names its example files import or call. */
function namesIn(file: string, source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/`([A-Za-z_$][\w$]*)(?:\([^`]*\))?`/g)) names.add(m[1] as string);
  for (const m of source.matchAll(/title="([A-Za-z]\w*)[:"]/g)) names.add(m[1] as string);
  for (const m of source.matchAll(/(?:result|example)="([A-Za-z]\w*)/g)) names.add(m[1] as string);
  for (const m of source.matchAll(/from '(\.[^']+)\?raw'/g)) {
    const example = resolve(dirname(file), m[1] as string);
    if (!existsSync(example)) continue;
    const code = readFileSync(example, 'utf8');
    for (const imp of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'@acp-kit\/[^']+'/g)) {
      for (const part of (imp[1] as string).split(',')) {
        const name = part
          .replace(/^\s*type\s+/, '')
          .split(/\s+as\s+/)[0]
          ?.trim();
        if (name) names.add(name);
      }
    }
  }
  return names;
}

/**
 * Which pages of the site mention which names, read from the page sources at build time, so a
 * reference page can link back to the guides that use its type.
 */
export function guideUsage(contentDir: string): Map<string, GuideRef[]> {
  const usage = new Map<string, GuideRef[]>();
  for (const file of pagesUnder(contentDir)) {
    const source = readFileSync(file, 'utf8');
    const title =
      /^title:\s*(.+)$/m
        .exec(source)?.[1]
        ?.trim()
        .replace(/^['"]|['"]$/g, '') ?? file;
    const ref = { title, href: hrefOf(contentDir, file) };
    for (const name of namesIn(file, source)) {
      const list = usage.get(name) ?? [];
      list.push(ref);
      usage.set(name, list);
    }
  }
  return usage;
}
