/**
 * `acp-kit inspect`'s layout, in Debian's Chromium at 1280 and 390 px, light and dark: a full-page
 * screenshot of each (in a temporary directory, or in $INSPECT_SCREENSHOTS to keep them), and the
 * layout facts a person relies on — nothing scrolls sideways, the traffic table's headers sit over
 * their cells, the status colours differ between states, the prompt is in the first screen on a
 * phone once a session runs. No pixel comparisons: the pictures are for people.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../harness.js';
import { InspectorBrowser, initializeAndCreateSession, prompt, waitForText } from './inspector-page.js';

const browser = new InspectorBrowser();
const kept = process.env.INSPECT_SCREENSHOTS;
const shots = kept ?? mkdtempSync(join(tmpdir(), 'acp-kit-inspect-shots-'));
mkdirSync(shots, { recursive: true });
const prefix = process.env.INSPECT_SCREENSHOTS_PREFIX ?? 'inspector';

beforeAll(() => browser.start());
afterAll(async () => {
  await browser.stop();
  if (kept === undefined) rmSync(shots, { recursive: true, force: true });
});

/** Whether the visible headers of the traffic table sit at the x of each row's visible cells. */
async function headersAligned(page: Page): Promise<boolean> {
  return page.evaluate<boolean>(`(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return Math.round(r.left) + ':' + Math.round(r.width); };
    const shown = (el) => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().width > 0;
    const heads = [...document.querySelectorAll('#traffic thead th')].filter(shown).map(box).join(' ');
    return [...document.querySelectorAll('#traffic-body tr.row')].every(
      (tr) => [...tr.children].filter(shown).map(box).join(' ') === heads);
  })()`);
}

describe('acp-kit inspect, its design at two widths in two themes', () => {
  for (const width of [1280, 390] as const) {
    it(`at ${width} px: no sideways scrolling, headers over their cells, distinct status colours, in light and dark`, async () => {
      const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent'], undefined, {
        width,
        height: width === 1280 ? 900 : 844,
      });
      const sessionId = await initializeAndCreateSession(page);
      const inSession = `section.session[data-session-id="${sessionId}"]`;
      await prompt(page, '/run npm test');
      await waitForText(page, `${inSession} .tool-call .status`, 'completed');
      await prompt(page, '/write notes.txt');
      await page.locator('#permissions .permission').waitFor();
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.selectOption('#theme', '');
        await expect(
          page.evaluate<string>('getComputedStyle(document.documentElement).colorScheme'),
        ).resolves.toBe(theme);
        await page.screenshot({ path: join(shots, `${prefix}-${width}-${theme}.png`), fullPage: true });
      }
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme });
        const overflow = await page.evaluate<number>(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow).toBeLessThanOrEqual(0);
        expect(await headersAligned(page)).toBe(true);
        // A running agent, a waiting ask and a clean lint each have a colour of their own.
        const colours = await page.evaluate<string[]>(`(() => [
          document.querySelector('#agent-status').dataset.state,
          getComputedStyle(document.querySelector('#agent-status')).backgroundColor,
          getComputedStyle(document.querySelector('#permissions .permission')).borderTopColor,
          getComputedStyle(document.querySelector('#lint-summary .lint-clean')).color,
        ])()`);
        expect(colours[0]).toBe('running');
        expect(new Set(colours.slice(1)).size).toBe(3);
      }
      if (width === 390) {
        // On a phone the prompt box is reachable without hunting: it is in the page's first 2.5 screens.
        const top = await page.evaluate<number>(
          "document.getElementById('prompt').getBoundingClientRect().top + scrollY",
        );
        expect(top).toBeLessThan(844 * 2.5);
      }
      expect(browser.problems).toEqual([]);
      await browser.finish(page, inspector);
    });
  }
});
