import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Bump, maxBump } from './bump.js';

/** The bump pending changesets give one package, and the files that give it. */
export interface PendingBump {
  readonly bump: Bump;
  readonly files: readonly string[];
}

/** Parses one changeset's frontmatter: `"<package>": patch|minor|major` lines between `---` fences. */
export function parseChangeset(text: string): Map<string, Bump> {
  const bumps = new Map<string, Bump>();
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (match === null) return bumps;
  for (const line of match[1]!.split(/\r?\n/)) {
    const entry = /^\s*["']?([^"':]+)["']?\s*:\s*(patch|minor|major|none)\s*$/.exec(line);
    if (entry !== null) bumps.set(entry[1]!.trim(), entry[2] as Bump);
  }
  return bumps;
}

/** The bump every package gets from the pending changesets in `.changeset/` (the largest one wins). */
export function pendingBumps(root: string): Map<string, PendingBump> {
  const dir = join(root, '.changeset');
  const result = new Map<string, PendingBump>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return result;
  }
  for (const name of names.sort()) {
    if (!name.endsWith('.md') || name.toLowerCase() === 'readme.md') continue;
    for (const [pkg, bump] of parseChangeset(readFileSync(join(dir, name), 'utf8'))) {
      const before = result.get(pkg) ?? { bump: 'none' as Bump, files: [] };
      result.set(pkg, { bump: maxBump(before.bump, bump), files: [...before.files, name] });
    }
  }
  return result;
}
