/**
 * A large session in `acp-kit inspect`, in Debian's Chromium: a resume that replays 5 000 messages
 * in 100 000 chunks (a raw ndjson agent, fixtures/big-session-agent.mjs) is taken in, and the page
 * keeps only the rows and messages near the view in the DOM, filters and scrolls to either end
 * without freezing its main thread (the longest gap between timer ticks is measured and bounded).
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InspectorBrowser, waitForText } from './inspector-page.js';

const BIG_AGENT = fileURLToPath(new URL('./fixtures/big-session-agent.mjs', import.meta.url));
const browser = new InspectorBrowser();

beforeAll(() => browser.start());
afterAll(() => browser.stop());

/** Starts recording the longest gap between 50 ms timer ticks of the page's main thread. */
async function watchMainThread(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__gap = { last: performance.now(), max: 0 };
    window.__gapTimer = setInterval(() => {
      const now = performance.now();
      window.__gap.max = Math.max(window.__gap.max, now - window.__gap.last);
      window.__gap.last = now;
    }, 50);
  })()`);
}

const longestGap = (page: Page): Promise<number> =>
  page.evaluate<number>('(clearInterval(window.__gapTimer), Math.round(window.__gap.max))');

describe('acp-kit inspect with a large session', () => {
  it('takes in a replay of 5 000 messages in 100 000 chunks, and scrolls and filters it without freezing', async () => {
    const { page, inspector } = await browser.inspect(
      ['--', process.execPath, BIG_AGENT, '--messages', '5000', '--chunks', '100000'],
      undefined,
      { width: 1280, height: 900 },
    );
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await page.click('#initialize');
    await page.locator('#log', { hasText: 'initialized (protocol version 2)' }).waitFor();
    await page.fill('#resume-id', 'big-session');
    await page.check('#replay');
    const started = Date.now();
    await page.click('#resume');
    const session = 'section.session[data-session-id="big-session"]';
    await page
      .locator('#log', { hasText: 'session big-session resumed with replay' })
      .waitFor({ timeout: 170_000 });
    await page.locator(`${session} .count`, { hasText: '5000 message(s)' }).waitFor({ timeout: 170_000 });
    const tookIn = Date.now() - started;
    const count = (await page.locator('#traffic-count').textContent()) ?? '';
    const total = Number(/of (\d+) message/.exec(count)?.[1]);
    expect(total).toBe(2 + 1 + 5000 + 100_000 + 1 + 1);

    // Windowed: a few rows and messages in the DOM, not 100 000 and 5 000.
    expect(await page.locator('#traffic-body tr.row').count()).toBeLessThan(300);
    expect(await page.locator(`${session} .feed .message`).count()).toBeLessThan(300);
    // Scrolled to the end as it arrived: the last message is on screen.
    await waitForText(page, `${session} .feed .message.agent_message .text`, 'm4999w0');

    await watchMainThread(page);
    let t = Date.now();
    await page.fill('#filter-method', 'session/resume');
    await page.locator('#traffic-count', { hasText: /^2 of / }).waitFor({ timeout: 60_000 });
    const filterMs = Date.now() - t;
    await expect(page.locator('#traffic-body tr.row td.method').allTextContents()).resolves.toEqual([
      'session/resume',
      'session/resume',
    ]);
    await page.fill('#filter-method', '');
    await page.locator('#traffic-count', { hasText: `${total} of ${total}` }).waitFor({ timeout: 60_000 });
    // To the top of the traffic and of the conversation: the first row and the first message render.
    t = Date.now();
    await page.evaluate(`(() => {
      const traffic = document.getElementById('traffic-scroll');
      traffic.scrollTop = 0;
      traffic.dispatchEvent(new Event('scroll'));
      const feed = document.querySelector('${session} .feed');
      feed.scrollTop = 0;
      feed.dispatchEvent(new Event('scroll'));
    })()`);
    await waitForText(page, '#traffic-body tr.row td.method', 'initialize');
    await waitForText(page, `${session} .feed .message.user_message .text`, 'm0w0');
    const scrollMs = Date.now() - t;
    // The diagram scrolled with the table: it now ends at the first rows, the rest said to follow.
    await waitForText(page, '#diagram .seq-divider-label', 'later messages in the traffic table');
    const labels = (await page.locator('#diagram .seq-arrow .seq-label').allTextContents()).filter((l) =>
      l.startsWith('#'),
    );
    expect(labels[0]).toBe('#1 initialize');
    expect(Number(/^#(\d+)/.exec(labels.at(-1) ?? '')?.[1])).toBeLessThan(200);
    expect(await page.locator('#traffic-body tr.row').count()).toBeLessThan(300);
    const gap = await longestGap(page);
    console.log(
      `large session: replay of 5000 messages / 100000 chunks taken in ${tookIn} ms; filter ${filterMs} ms; scroll to top ${scrollMs} ms; longest main-thread gap while filtering and scrolling ${gap} ms`,
    );
    // A frozen page would stall for seconds; this bound leaves room for a loaded 2-core machine.
    expect(gap).toBeLessThan(2500);
    await browser.finish(page, inspector);
  });

  it('raised no console error and made no request outside the inspector', () => {
    expect(browser.problems).toEqual([]);
  });
});
