/**
 * The inspector's next edit suggestions panel (issue 43), in Debian's Chromium against
 * `acp-kit agent --unstable` over stdio: typing in the editor sends the document events and asks
 * for suggestions, a completion is accepted into the text (`nes/accept`), a jump is rejected
 * (`nes/reject`), every frame is in the traffic table, and the panel fits a 390 px phone. A stable
 * agent offers no NES: the panel is not shown.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../harness.js';
import { InspectorBrowser, waitForText } from './inspector-page.js';

const browser = new InspectorBrowser();

beforeAll(() => browser.start());
afterAll(() => browser.stop());

/** Initializes as v2 with `capabilities` (JSON) from the Connect panel. */
async function initialize(page: Page, capabilities: string): Promise<void> {
  await page.locator('#agent-status', { hasText: 'started' }).waitFor();
  await page.locator('#capabilities').fill(capabilities);
  await page.click('#initialize');
  await page.locator('#log', { hasText: 'initialized (protocol version 2)' }).waitFor();
}

/**
 * The messages of the traffic table whose method contains `method`: the table filtered to them
 * (once the filtered render is drawn: every row listed has such a method), and how many of them
 * failed the schema.
 */
async function filtered(page: Page, method: string): Promise<{ raw: string[]; invalid: number }> {
  await page.locator('#filter-method').fill(method);
  await expect
    .poll(async () =>
      (await page.locator('#traffic-body tr.row td.method').allTextContents()).every((m) =>
        m.includes(method),
      ),
    )
    .toBe(true);
  const raw = await page.locator('#traffic-body tr.row td.raw').allTextContents();
  const invalid = await page.locator('#traffic-body tr.row.invalid').count();
  await page.locator('#filter-method').fill('');
  return { raw, invalid };
}

const rowsOf = async (page: Page, method: string): Promise<string[]> => (await filtered(page, method)).raw;

describe('acp-kit inspect, the next edit suggestions panel', () => {
  it('sends the edits, shows suggestions as you type, accepts one into the text and rejects one, at 390 px', async () => {
    const { page, inspector } = await browser.inspect(
      ['--', process.execPath, BIN, 'agent', '--unstable'],
      undefined,
      { width: 390, height: 844 },
    );
    await initialize(page, '{"nes": {"jump": {}, "rename": {}, "searchAndReplace": {}}}');
    await page.locator('#nes-pane').waitFor({ state: 'visible' });
    await page.click('#nes-start');
    await waitForText(page, '#nes-status', 'NES session');
    const editor = page.locator('#nes-editor');
    await expect(editor.inputValue()).resolves.toBe('const fooBar = 1;\n');
    await editor.focus();
    await page.keyboard.press('Control+End');
    await editor.pressSequentially('foo');
    // The agent completes the typed prefix from the other word in the document.
    await waitForText(page, '#nes-suggestions li[data-kind="edit"]', 'insert "Bar" at 2:4');
    await page.locator('#nes-suggestions li[data-kind="edit"] .nes-accept').click();
    await expect.poll(() => editor.inputValue()).toBe('const fooBar = 1;\nfooBar');
    // Then, at the completed word, a jump to its other occurrence: rejected.
    await waitForText(page, '#nes-suggestions li[data-kind="jump"]', 'jump to 1:7');
    await page.locator('#nes-suggestions li[data-kind="jump"] .nes-reject').click();
    await expect.poll(() => page.locator('#nes-suggestions li[data-kind="jump"]').count()).toBe(0);
    await page.click('#nes-close');
    await waitForText(page, '#log', 'closed');

    await expect.poll(() => rowsOf(page, 'nes/accept')).toHaveLength(1);
    const accepted = (await rowsOf(page, 'nes/accept'))[0]!;
    const rejected = await rowsOf(page, 'nes/reject');
    expect(rejected.some((text) => text.includes('"reason":"rejected"'))).toBe(true);
    // The edits went as incremental changes with ranges (the agent asked for incremental).
    const changes = await rowsOf(page, 'document/didChange');
    expect(changes.length).toBeGreaterThanOrEqual(4);
    expect(changes.every((text) => text.includes('"range"'))).toBe(true);
    expect(await rowsOf(page, 'document/didOpen')).toHaveLength(1);
    expect(await rowsOf(page, 'document/didFocus')).toHaveLength(1);
    expect((await rowsOf(page, 'nes/suggest')).length).toBeGreaterThanOrEqual(2);
    expect(await rowsOf(page, 'nes/close')).toHaveLength(2);
    // The accepted suggestion is the one the agent sent as the completion.
    const suggested = (await rowsOf(page, 'nes/suggest')).find((text) => text.includes('"newText":"Bar"'));
    const answer = JSON.parse(suggested ?? '{}') as {
      result?: { suggestions?: { kind: string; suggestionId: string }[] };
    };
    const id = answer.result?.suggestions?.find((s) => s.kind === 'edit')?.suggestionId;
    expect(id).toBeDefined();
    expect(accepted).toContain(`"suggestionId":"${id}"`);

    // Every NES message and document event met the schema.
    expect((await filtered(page, 'nes/')).invalid).toBe(0);
    expect((await filtered(page, 'document/')).invalid).toBe(0);
    // It fits the phone: nothing wider than the viewport.
    const widths = await page.evaluate<{ page: number; panel: number }>(`(() => ({
      page: document.documentElement.scrollWidth,
      panel: document.getElementById('nes-pane').getBoundingClientRect().right,
    }))()`);
    expect(widths.page).toBeLessThanOrEqual(390);
    expect(widths.panel).toBeLessThanOrEqual(390);
    expect(browser.problems).toEqual([]);
    await browser.finish(page, inspector);
  });

  it('is not shown for an agent that does not offer next edit suggestions', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent']);
    await initialize(page, '{"nes": {"jump": {}}}');
    await expect(page.locator('#agent-capabilities').textContent()).resolves.not.toContain('"nes"');
    // The panel is in the page, hidden: not an error, nothing sent.
    await expect(page.locator('#nes-pane').count()).resolves.toBe(1);
    await expect(page.locator('#nes-pane').isHidden()).resolves.toBe(true);
    expect(await rowsOf(page, 'nes/')).toEqual([]);
    expect(browser.problems).toEqual([]);
    await browser.finish(page, inspector);
  });
});
