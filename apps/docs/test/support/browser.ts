import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium; `scripts/ensure-chromium.sh` installs it. Playwright's own builds are never downloaded. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** A launched browser (one persistent context on a throwaway profile) and its clean-up. */
export interface LaunchedBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with a fresh profile and everything that could reach the
 * network on its own (sync, component updates, background fetches) switched off, so the
 * only requests a test sees are the ones the page makes.
 */
export async function launchChromium(): Promise<LaunchedBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing; run scripts/ensure-chromium.sh (needs apt and root)`);
  }
  const profile = await mkdtemp(join(tmpdir(), 'acp-kit-docs-chromium-'));
  // Playwright owns --user-data-dir through launchPersistentContext; the profile is still ours and fresh.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
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
