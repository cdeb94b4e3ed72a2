/**
 * `acp-kit inspect` used by a person, in Debian's Chromium: the keyboard alone reaches and works
 * every control of a turn, a 390 px wide phone gets no sideways scrolling, both themes keep their
 * text readable, and no console error or outside request happens. The same run takes the guide's
 * screenshots from the real app, after checking that each shows what its caption says; with
 * UPDATE_SCREENSHOTS=1 they replace the ones in apps/docs/public/inspector/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../harness.js';
import { InspectorBrowser, initializeAndCreateSession, prompt, waitForText } from './inspector-page.js';

const FIXTURE_AGENT = fileURLToPath(
  new URL('../../../conformance/test/fixtures/fixture-agent.mjs', import.meta.url),
);
const DOCS_SHOTS = fileURLToPath(new URL('../../../../apps/docs/public/inspector/', import.meta.url));
const GUIDE = fileURLToPath(
  new URL('../../../../apps/docs/src/content/docs/guides/inspecting-an-agent.mdx', import.meta.url),
);
/** The screenshots the guide shows, by file name. */
const SHOTS = ['connect.png', 'conversation.png', 'traffic.png', 'diagram.png', 'phone-dark.png'] as const;

const browser = new InspectorBrowser();
const scratch = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-shots-'));
const shotDir = process.env.UPDATE_SCREENSHOTS === '1' ? DOCS_SHOTS : scratch;
mkdirSync(shotDir, { recursive: true });

beforeAll(() => browser.start());
afterAll(async () => {
  await browser.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

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
  it('runs a whole turn from the keyboard alone, and shows it in the screenshots the guide uses', async () => {
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
    // Shot while the question waits: the conversation with its tool call, terminal, plan and card.
    const card = page.locator('#permissions .permission');
    await expect(card.locator('p').textContent()).resolves.toContain('Allow: /write notes.txt');
    await expect(page.locator(`${inSession} .tool-call .terminal-command`).textContent()).resolves.toContain(
      '$ npm test',
    );
    await expect(page.locator(`${inSession} .plan li`).count()).resolves.toBe(2);
    await page.locator('#conversation-pane').screenshot({ path: join(shotDir, 'conversation.png') });
    await page.keyboard.press('Enter');
    await waitForText(page, `${inSession} .message.agent_message .text`, 'Permission granted: done.');
    await expect(page.locator('#permissions .permission').count()).resolves.toBe(0);

    await expect(page.locator('#agent-info').textContent()).resolves.toContain('acp-kit-agent');
    await expect(page.locator('#session-controls select[data-config-id="mode"]').inputValue()).resolves.toBe(
      'code',
    );
    await page.locator('#connect').screenshot({ path: join(shotDir, 'connect.png') });

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

  it('shows a broken agent’s violation in the traffic and the diagram (the guide’s screenshots)', async () => {
    const { page, inspector } = await browser.inspect(
      ['--', process.execPath, FIXTURE_AGENT, '--break', 'no-user-message'],
      undefined,
      { width: 1280, height: 900 },
    );
    const sessionId = await initializeAndCreateSession(page);
    await prompt(page, 'hello');
    await waitForText(page, `section.session[data-session-id="${sessionId}"] .state`, 'state: idle');
    await waitForText(page, '#traffic-body tr.has-findings .finding', 'prompt.user-message');
    await page.fill('#filter-session', sessionId);
    await expect(page.locator('#lint-summary .lint-failed').textContent()).resolves.toContain(
      'prompt.user-message',
    );
    await page.locator('#traffic-pane').screenshot({ path: join(shotDir, 'traffic.png') });
    await waitForText(page, '#diagram .seq-note-warning', 'prompt.user-message');
    await page.locator('#diagram-pane').screenshot({ path: join(shotDir, 'diagram.png') });
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
      for (const selector of ['html', '#connect', '#traffic-pane', '#log'])
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
    await page.evaluate("document.getElementById('conversation-pane').scrollIntoView()");
    await page.screenshot({ path: join(shotDir, 'phone-dark.png') });
    await browser.finish(page, inspector);
  });

  it('took every screenshot the guide shows, and the guide shows each of them', () => {
    const guide = readFileSync(GUIDE, 'utf8');
    for (const shot of SHOTS) {
      const { width, height } = pngSize(join(shotDir, shot));
      expect(width).toBeGreaterThan(300);
      expect(height).toBeGreaterThan(200);
      expect(guide).toContain(`](/inspector/${shot})`);
      // The committed copy the docs serve is a PNG too.
      pngSize(join(DOCS_SHOTS, shot));
    }
    expect(pngSize(join(shotDir, 'phone-dark.png')).width).toBe(390);
  });

  it('raised no console error and made no request outside the inspector', () => {
    expect(browser.problems).toEqual([]);
  });
});
