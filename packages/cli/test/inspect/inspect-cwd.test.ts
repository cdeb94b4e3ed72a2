/**
 * `acp-kit inspect`'s page, in Debian's Chromium: the working directory for new sessions defaults to
 * the directory the inspector was started in (it read `/tmp` whatever the directory), also after a
 * reload; and the Traffic table's Time column reads as a person reads time (it read `120812 ms`).
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

describe('acp-kit inspect, the working directory and the times', () => {
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

  it("shows each message's time in ms, s or m:ss, with the exact milliseconds in its title", async () => {
    const { page } = await browser.inspect(['--', process.execPath, BIN, 'agent'], undefined, undefined, dir);
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await page.locator('#initialize').click();
    await page.locator('#log', { hasText: 'initialized (protocol version 2)' }).waitFor();
    const cell = page.locator('tr.row td.t').first();
    await cell.waitFor({ state: 'attached' });
    expect(await cell.textContent()).toMatch(/^(\d{1,3} ms|\d{1,2}\.\d s|\d+:\d\d\.\d)$/);
    expect(await cell.getAttribute('title')).toMatch(/^\d+ ms after the inspector started$/);
    expect(browser.problems).toEqual([]);
  });
});
