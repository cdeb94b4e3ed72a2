/** The kind of version bump a changeset asks for. */
export type BumpType = 'major' | 'minor' | 'patch';

/** One package a changeset releases. */
export interface ChangesetRelease {
  readonly name: string;
  readonly type: BumpType;
}

/** A pending changeset file (`.changeset/<name>.md`), split into its parts. */
export interface ParsedChangeset {
  readonly releases: readonly ChangesetRelease[];
  /** The markdown after the front matter: what changed, in the author's words. */
  readonly summary: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n?---\r?\n?([\s\S]*)$/;
const RELEASE_LINE = /^\s*(["']?)([^"':]+(?::[^"':]+)?)\1\s*:\s*(major|minor|patch)\s*$/;

/**
 * Reads a changeset file. Changesets write a tiny, fixed YAML subset (`"pkg": bump`
 * per line), so a line parser is enough and keeps the docs free of a YAML dependency.
 * A line that does not fit is reported rather than skipped, so a typo cannot hide a release.
 */
export function parseChangeset(text: string): ParsedChangeset {
  const match = FRONT_MATTER.exec(text);
  if (match === null)
    throw new Error('a changeset must begin with a front matter block between two --- lines');
  const releases: ChangesetRelease[] = [];
  for (const raw of (match[1] ?? '').split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    const line = RELEASE_LINE.exec(raw);
    if (line === null) throw new Error(`unreadable changeset front matter line: ${raw}`);
    releases.push({ name: line[2] ?? '', type: line[3] as BumpType });
  }
  return { releases, summary: (match[2] ?? '').trim() };
}

/**
 * Prepares a package CHANGELOG.md for embedding under a heading of our own: drops its
 * `# package-name` title and moves every other heading `levels` down (outside code fences),
 * so versions nest under the package name on the changelog page.
 */
export function embedChangelog(markdown: string, levels = 2): string {
  const lines = markdown.split(/\r?\n/);
  const out: string[] = [];
  let inFence = false;
  let titleDropped = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && !titleDropped && /^#\s/.test(line)) {
      titleDropped = true;
      continue;
    }
    const heading = inFence ? null : /^(#{1,6})(\s.*)$/.exec(line);
    out.push(
      heading === null ? line : `${'#'.repeat(Math.min(6, (heading[1] ?? '').length + levels))}${heading[2]}`,
    );
  }
  return out.join('\n').trim();
}
