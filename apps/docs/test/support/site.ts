import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built site the browser tests read; `npm run build` produces it, the tests never do. */
export const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** Where artefacts for human review (screenshots) are written; gitignored. */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** Fails early, with the command to run, when the site has not been built. */
export function assertBuilt(): void {
  if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error('apps/docs/dist is missing: run `npm run build -w @acp-kit/docs` before the tests.');
  }
}

/** Every HTML page in the build, as the URL path a browser would request (`/guides/x/`). */
export async function listPages(): Promise<string[]> {
  const files = (await readdir(DIST, { recursive: true }))
    .map(String)
    .filter((file) => file.endsWith('.html'))
    .sort();
  return files.map((file) => {
    const path = `/${relative(DIST, join(DIST, file)).split(sep).join('/')}`;
    return path.endsWith('/index.html') ? path.slice(0, -'index.html'.length) : path;
  });
}
