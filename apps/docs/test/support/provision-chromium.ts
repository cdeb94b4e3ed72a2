import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH } from './browser.ts';

/** The repository's installer for Debian's Chromium (apt-get, never a downloaded browser build). */
const ENSURE_CHROMIUM = fileURLToPath(new URL('../../../../scripts/ensure-chromium.sh', import.meta.url));

/**
 * Vitest global setup: on a fresh machine the browser suite provisions Debian's Chromium itself,
 * so `npm run check` needs no set-up step of its own. Does nothing when Chromium is present.
 */
export default function provisionChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  const result = spawnSync('sh', [ENSURE_CHROMIUM], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0 || !existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing and ${ENSURE_CHROMIUM} could not install it (exit ${result.status ?? result.signal}); ` +
        'install it with `apt-get install -y chromium` (needs root or sudo)',
    );
  }
}
