import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The repository root, found from the working directory (the docs build and tests run in
 * apps/docs or the root). Build-time modules use this instead of `import.meta.url`, which points
 * into dist/chunks once Astro has bundled them.
 */
export function repoRoot(): string {
  let dir = process.cwd();
  for (;;) {
    if (
      existsSync(join(dir, 'schema', 'v2')) &&
      existsSync(join(dir, 'packages')) &&
      existsSync(join(dir, 'apps', 'docs'))
    ) {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the acp-kit repository root above ${process.cwd()}`);
    dir = parent;
  }
}

/** apps/docs/src/content/docs: the hand-written pages. */
export function contentDir(): string {
  return join(repoRoot(), 'apps', 'docs', 'src', 'content', 'docs');
}
