import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Loader } from 'astro/loaders';
import { embedChangelog, type ParsedChangeset, parseChangeset } from './parse.ts';

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Loads the repository's release notes at build time: pending `.changeset/*.md` files and
 * every `packages/<dir>/CHANGELOG.md` that exists. Nothing is copied into the docs; the
 * page is rebuilt from these files each time.
 */
export function changelogLoader(): Loader {
  return {
    name: 'acp-kit-changelog',
    async load({ store, config, renderMarkdown, generateDigest, parseData, logger }) {
      const repoRoot = fileURLToPath(new URL('../../', config.root));
      store.clear();

      const changesetDir = join(repoRoot, '.changeset');
      for (const file of await listDir(changesetDir)) {
        if (!file.endsWith('.md') || file.toLowerCase() === 'readme.md') continue;
        const text = await readFile(join(changesetDir, file), 'utf8');
        let parsed: ParsedChangeset;
        try {
          parsed = parseChangeset(text);
        } catch (error) {
          // `changeset status` fails the check on the same file; the docs say so and build on.
          logger.warn(
            `skipping .changeset/${file}: ${error instanceof Error ? error.message : String(error)}`,
          );
          continue;
        }
        const { releases, summary } = parsed;
        const id = `pending/${file.replace(/\.md$/, '')}`;
        const data = await parseData({ id, data: { kind: 'pending', releases } });
        store.set({
          id,
          data,
          body: summary,
          digest: generateDigest(text),
          rendered: await renderMarkdown(summary),
        });
      }

      const packagesDir = join(repoRoot, 'packages');
      for (const dir of await listDir(packagesDir)) {
        const changelog = await readIfPresent(join(packagesDir, dir, 'CHANGELOG.md'));
        if (changelog === undefined) continue;
        const manifest = await readIfPresent(join(packagesDir, dir, 'package.json'));
        const name = manifest === undefined ? dir : ((JSON.parse(manifest) as { name?: string }).name ?? dir);
        const body = embedChangelog(changelog);
        const id = `released/${dir}`;
        const data = await parseData({ id, data: { kind: 'released', packageName: name } });
        store.set({
          id,
          data,
          body,
          digest: generateDigest(changelog),
          rendered: await renderMarkdown(body),
        });
      }
      logger.info(`loaded ${store.keys().length} changelog entries`);
    },
  };
}
