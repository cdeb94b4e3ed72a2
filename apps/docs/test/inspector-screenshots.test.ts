/**
 * The screenshots of the "Inspecting an agent" guide, taken from the real `acp-kit inspect` in
 * Debian's Chromium after checking that each state shows what its caption says: the Connect panel
 * and a conversation with a tool call, its terminal, a plan and a permission waiting (the reference
 * agent), a broken agent's finding in the traffic and the diagram (the conformance fixture agent),
 * and the page 390 px wide in the dark theme. With UPDATE_SCREENSHOTS=1 they replace the ones in
 * public/inspector/; otherwise they go to a scratch folder, and the committed ones are checked to
 * be PNGs the guide shows.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../../../packages/cli/test/harness.ts';
import {
  InspectorBrowser,
  initializeAndCreateSession,
  prompt,
  waitForText,
} from '../../../packages/cli/test/inspect/inspector-page.ts';

const FIXTURE_AGENT = fileURLToPath(
  new URL('../../../packages/conformance/test/fixtures/fixture-agent.mjs', import.meta.url),
);
const COMMITTED = fileURLToPath(new URL('../public/inspector/', import.meta.url));
const GUIDE = fileURLToPath(new URL('../src/content/docs/guides/inspecting-an-agent.mdx', import.meta.url));
/** The screenshots the guide shows. */
const SHOTS = ['connect.png', 'conversation.png', 'traffic.png', 'diagram.png', 'phone-dark.png'] as const;

const browser = new InspectorBrowser();
const scratch = mkdtempSync(join(tmpdir(), 'acp-kit-inspector-shots-'));
const shotDir = process.env.UPDATE_SCREENSHOTS === '1' ? COMMITTED : scratch;

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

describe('the screenshots of the inspecting-an-agent guide', () => {
  it('shows the Connect panel, and a conversation with a tool call, its terminal, a plan and a permission waiting', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent'], undefined, {
      width: 1280,
      height: 900,
    });
    const sessionId = await initializeAndCreateSession(page);
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await prompt(page, '/run npm test');
    await waitForText(page, `${inSession} .tool-call .status`, 'completed');
    await prompt(page, '/write notes.txt');
    const card = page.locator('#permissions .permission');
    await card.waitFor();
    await expect(card.locator('p').textContent()).resolves.toContain('Allow: /write notes.txt');
    await expect(page.locator(`${inSession} .tool-call .terminal-command`).textContent()).resolves.toContain(
      '$ npm test',
    );
    await expect(page.locator(`${inSession} .plan li`).count()).resolves.toBe(2);
    await page.locator('#conversation-pane').screenshot({ path: join(shotDir, 'conversation.png') });
    await card.locator('button[data-option-id="allow"]').click();
    await waitForText(page, `${inSession} .message.agent_message .text`, 'Permission granted: done.');
    await expect(page.locator('#agent-info').textContent()).resolves.toContain('acp-kit-agent');
    await expect(page.locator('#auth-methods').textContent()).resolves.toContain('none');
    await page.locator('#connect').screenshot({ path: join(shotDir, 'connect.png') });
    await browser.finish(page, inspector);
  });

  it('shows a broken agent’s violation in the traffic and the diagram', async () => {
    const { page, inspector } = await browser.inspect(
      ['--', process.execPath, FIXTURE_AGENT, '--break', 'no-user-message'],
      undefined,
      { width: 1280, height: 900 },
    );
    const sessionId = await initializeAndCreateSession(page);
    await prompt(page, 'hello');
    await waitForText(page, `section.session[data-session-id="${sessionId}"] .state`, 'state: idle');
    await page.fill('#filter-session', sessionId);
    await waitForText(page, '#traffic-body tr.has-findings .finding', 'prompt.user-message');
    await waitForText(page, '#lint-summary .lint-failed', 'prompt.user-message');
    await page.locator('#traffic-pane').screenshot({ path: join(shotDir, 'traffic.png') });
    await waitForText(page, '#diagram .seq-note-warning', 'prompt.user-message');
    await page.locator('#diagram-pane').screenshot({ path: join(shotDir, 'diagram.png') });
    await browser.finish(page, inspector);
  });

  it('shows the page 390 px wide in the dark theme', async () => {
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
    await page.selectOption('#theme', 'dark');
    await expect(
      page.evaluate<string>('getComputedStyle(document.documentElement).colorScheme'),
    ).resolves.toBe('dark');
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
      pngSize(join(COMMITTED, shot));
    }
    expect(pngSize(join(shotDir, 'phone-dark.png')).width).toBe(390);
  });

  it('raised no console error and made no request outside the inspector', () => {
    expect(browser.problems).toEqual([]);
  });
});
