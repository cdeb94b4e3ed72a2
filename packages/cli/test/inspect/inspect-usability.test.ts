/**
 * `acp-kit inspect` used by a person, in Debian's Chromium: the keyboard alone reaches and works
 * every control of a turn, a 390 px wide phone gets no sideways scrolling, both themes keep their
 * text readable, a reload rebuilds what the page knows, and no console error or outside request
 * happens. (The docs' guide takes its screenshots in apps/docs/test/inspector-screenshots.test.ts.)
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../harness.js';
import { InspectorBrowser, initializeAndCreateSession, prompt, waitForText } from './inspector-page.js';

const browser = new InspectorBrowser();

beforeAll(() => browser.start());
afterAll(() => browser.stop());

/** WCAG contrast ratio between the computed text colour and background of an element. */
async function contrast(page: Page, selector: string): Promise<number> {
  return page.evaluate<number>(`(() => {
    const rgb = (css) => css.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const el = document.querySelector(${JSON.stringify(selector)});
    const style = getComputedStyle(el);
    const a = lum(rgb(style.color));
    const b = lum(rgb(style.backgroundColor));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  })()`);
}

/** Presses Tab until `selector` has the focus; fails after `limit` presses. Returns how many it took. */
async function tabTo(page: Page, selector: string, limit = 80): Promise<number> {
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate<boolean>(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`))
      return presses;
  }
  throw new Error(`${selector} was not reached with ${limit} Tab presses`);
}

describe('acp-kit inspect, used by a person', () => {
  it('runs a whole turn from the keyboard alone', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent'], undefined, {
      width: 1280,
      height: 900,
    });
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await page.evaluate('document.activeElement?.blur()');
    await tabTo(page, '#initialize');
    await page.keyboard.press('Enter');
    await page.locator('#log', { hasText: 'initialized (protocol version 2)' }).waitFor();
    await tabTo(page, '#new-session');
    await page.keyboard.press('Enter');
    const created = page.locator('#log', { hasText: /session \S+ created/ });
    await created.waitFor();
    const sessionId = /session (\S+) created/.exec((await created.textContent()) ?? '')![1]!;
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    // The palette and the prompt from the keyboard: "/ru", Enter picks /run, Enter sends.
    await tabTo(page, '#prompt');
    await page.keyboard.type('/ru');
    await page.locator('#palette [aria-selected="true"]', { hasText: '/run' }).waitFor();
    await page.keyboard.press('Enter');
    await page.keyboard.type('npm test');
    await page.keyboard.press('Enter');
    await waitForText(page, `${inSession} .tool-call .status`, 'completed');
    // A permission answered from the keyboard.
    await page.keyboard.type('/write notes.txt');
    await page.keyboard.press('Enter');
    await page.locator('#permissions .permission').waitFor();
    await page.locator('#prompt').focus();
    await tabTo(page, '#permissions button[data-option-id="allow"]');
    // While the question waits: the conversation with its tool call, terminal, plan and card.
    const card = page.locator('#permissions .permission');
    await expect(card.locator('p').textContent()).resolves.toContain('Allow: /write notes.txt');
    await expect(page.locator(`${inSession} .tool-call .terminal-command`).textContent()).resolves.toContain(
      '$ npm test',
    );
    await expect(page.locator(`${inSession} .plan li`).count()).resolves.toBe(2);
    await page.keyboard.press('Enter');
    await waitForText(page, `${inSession} .message.agent_message .text`, 'Permission granted: done.');
    await expect(page.locator('#permissions .permission').count()).resolves.toBe(0);

    await expect(page.locator('#agent-info').textContent()).resolves.toContain('acp-kit-agent');
    await expect(page.locator('#session-controls select[data-config-id="mode"]').inputValue()).resolves.toBe(
      'code',
    );

    // Every control of the page is reachable with Tab (none is a mouse-only element).
    const reachable: string[] = [];
    await page.evaluate('document.activeElement?.blur()');
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      reachable.push(await page.evaluate<string>('document.activeElement?.id ?? ""'));
    }
    for (const id of [
      'theme',
      'restart',
      'protocol',
      'initialize',
      'new-session',
      'resume',
      'send',
      'cancel-turn',
      'export',
      'import',
      'filter-kind',
    ])
      expect(reachable).toContain(id);
    await browser.finish(page, inspector);
  });

  it('fits a 390 px wide phone without sideways scrolling, and keeps text readable in both themes', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent'], undefined, {
      width: 390,
      height: 844,
    });
    const sessionId = await initializeAndCreateSession(page);
    await prompt(page, '/run ls');
    await waitForText(
      page,
      `section.session[data-session-id="${sessionId}"] .tool-call .status`,
      'completed',
    );
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    for (const theme of ['light', 'dark'] as const) {
      await page.selectOption('#theme', theme);
      await expect(
        page.evaluate<string>('getComputedStyle(document.documentElement).colorScheme'),
      ).resolves.toBe(theme);
      for (const selector of ['html', '#connect', '#traffic-pane', '#log', '#log-box'])
        expect(await contrast(page, selector)).toBeGreaterThanOrEqual(4.5);
    }
    // The choice is kept for the next visit.
    await page.reload();
    await expect(page.locator('#theme').inputValue()).resolves.toBe('dark');
    await page.locator('#status', { hasText: 'connected to the inspector' }).waitFor();
    await waitForText(
      page,
      `section.session[data-session-id="${sessionId}"] .tool-call .status`,
      'completed',
    );
    // The reloaded page rebuilt what it knows from the inspector's log, not only the conversation:
    // the agent's info and the session's options, though this tab asked for neither.
    await expect(page.locator('#agent-info').textContent()).resolves.toContain('acp-kit-agent');
    await expect(page.locator('#session-controls select[data-config-id="mode"]').inputValue()).resolves.toBe(
      'code',
    );
    await browser.finish(page, inspector);
  });

  it('raised no console error and made no request outside the inspector', () => {
    expect(browser.problems).toEqual([]);
  });
});
