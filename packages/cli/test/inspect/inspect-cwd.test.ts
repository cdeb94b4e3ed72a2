/**
 * `acp-kit inspect`'s page, in Debian's Chromium: the working directory for new sessions defaults to
 * the directory the inspector was started in (it read `/tmp` whatever the directory), also after a
 * reload.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../harness.js';
import { InspectorBrowser } from './inspector-page.js';

const browser = new InspectorBrowser();
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-inspect-cwd-')));

beforeAll(() => browser.start());
afterAll(async () => {
  await browser.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('acp-kit inspect, the working directory', () => {
  it('defaults to where the inspector was started, also after a reload', async () => {
    const { page } = await browser.inspect(['--', process.execPath, BIN, 'agent'], undefined, undefined, dir);
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await expect.poll(() => page.locator('#cwd').inputValue(), { timeout: 30_000 }).toBe(dir);
    await page.locator('#cwd').fill('/srv/project');
    await page.reload();
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    // A reload starts from the default again: the inspector's directory.
    await expect.poll(() => page.locator('#cwd').inputValue(), { timeout: 30_000 }).toBe(dir);
    expect(browser.problems).toEqual([]);
  });
});
