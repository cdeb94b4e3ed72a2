import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium (`scripts/ensure-chromium.sh` installs it); Playwright's own builds are never downloaded. */
const CHROMIUM = '/usr/bin/chromium';
const ENSURE_CHROMIUM = fileURLToPath(new URL('../../../../scripts/ensure-chromium.sh', import.meta.url));

/** One headless Chromium on a throwaway profile for a whole test file, and its clean-up. */
export async function openChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  // A fresh clone's `npm run check` installs it (apt-get), as the other browser tests do.
  if (!existsSync(CHROMIUM)) {
    const result = spawnSync('sh', [ENSURE_CHROMIUM], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) throw new Error(`${CHROMIUM} is missing and ${ENSURE_CHROMIUM} failed`);
  }
  const profile = await mkdtemp(join(tmpdir(), 'acp-kit-inspect-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
