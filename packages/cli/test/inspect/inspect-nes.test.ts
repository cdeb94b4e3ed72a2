/**
 * The inspector's next edit suggestions panel (issue 43), in Debian's Chromium against
 * `acp-kit agent --unstable` over stdio: typing in the editor sends the document events and asks
 * for suggestions, a completion is accepted into the text (`nes/accept`), a jump is rejected
 * (`nes/reject`), every frame is in the traffic table, and the panel fits a 390 px phone. After a
 * hand rename, a `rename` and a `searchAndReplace` are shown, accepted into the text or rejected,
 * with positions in UTF-32 on the wire; Save sends `document/didSave` and Suggest a manual
 * `nes/suggest`. A stable agent offers no NES: the panel is not shown.
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
  // The message's text, without the Show all button a long row has.
  const raw = await page.locator('#traffic-body tr.row td.raw .clip').allTextContents();
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

  it('after a hand rename, accepts a rename into the text, rejects one and accepts a searchAndReplace, positions in UTF-32 on the wire; Save and Suggest send didSave and a manual suggest', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent', '--unstable']);
    await initialize(
      page,
      '{"nes": {"jump": {}, "rename": {}, "searchAndReplace": {}}, "positionEncodings": ["utf-32"]}',
    );
    await page.locator('#nes-pane').waitFor({ state: 'visible' });
    await page.click('#nes-start');
    await waitForText(page, '#nes-status', 'positions in utf-32');
    const editor = page.locator('#nes-editor');
    // An emoji (two UTF-16 code units, one UTF-32 one) before the name on each line it is on.
    await editor.fill('/* 😀 */ let count = 0;\n/* 😀 */ count += 1;\nlog(count);\n');
    await waitForText(page, '#nes-status', 'document version 2');
    // Rename the first occurrence by hand, in one input (as a paste over the selection does).
    const renameByHand = async (from: number, to: number, name: string): Promise<void> => {
      await page.evaluate(`document.getElementById('nes-editor').setSelectionRange(${from}, ${to})`);
      await page.keyboard.insertText(name);
    };
    await renameByHand(13, 18, 'total');
    // The symbol still to rename is the first `count` left, at UTF-16 2:10 (shown one-based).
    await waitForText(
      page,
      '#nes-suggestions li[data-kind="rename"]',
      'rename the symbol at 2:10 to "total"',
    );
    await waitForText(
      page,
      '#nes-suggestions li[data-kind="searchAndReplace"]',
      'replace every "count" with "total"',
    );
    await page.locator('#nes-suggestions li[data-kind="rename"] .nes-accept').click();
    await expect
      .poll(() => editor.inputValue())
      .toBe('/* 😀 */ let total = 0;\n/* 😀 */ total += 1;\nlog(total);\n');

    // A second hand rename: its rename rejected, its searchAndReplace accepted.
    await renameByHand(13, 18, 'sum');
    await waitForText(page, '#nes-suggestions li[data-kind="rename"]', 'rename the symbol at 2:10 to "sum"');
    await page.locator('#nes-suggestions li[data-kind="rename"] .nes-reject').click();
    await expect.poll(() => page.locator('#nes-suggestions li[data-kind="rename"]').count()).toBe(0);
    await waitForText(
      page,
      '#nes-suggestions li[data-kind="searchAndReplace"]',
      'replace every "total" with "sum"',
    );
    await page.locator('#nes-suggestions li[data-kind="searchAndReplace"] .nes-accept').click();
    await expect
      .poll(() => editor.inputValue())
      .toBe('/* 😀 */ let sum = 0;\n/* 😀 */ sum += 1;\nlog(sum);\n');

    await page.click('#nes-save');
    await page.click('#nes-suggest');
    await expect.poll(async () => (await rowsOf(page, 'document/didSave')).length).toBe(1);
    await expect
      .poll(async () =>
        (await rowsOf(page, 'nes/suggest')).some((text) => text.includes('"triggerKind":"manual"')),
      )
      .toBe(true);
    await page.click('#nes-close');
    await waitForText(page, '#log', 'closed');

    // On the wire: each rename's position in UTF-32 (the emoji counts one), the accepted and
    // rejected IDs those of the suggestions of that kind.
    const answers = (await rowsOf(page, 'nes/suggest'))
      .map((text) => JSON.parse(text) as { result?: { suggestions?: Record<string, unknown>[] } })
      .flatMap((message) => message.result?.suggestions ?? []);
    const renames = answers.filter((s) => s.kind === 'rename');
    expect(renames.map((s) => [s.position, s.newName])).toEqual([
      [{ line: 1, character: 8 }, 'total'],
      [{ line: 1, character: 8 }, 'sum'],
    ]);
    const replaces = answers.filter((s) => s.kind === 'searchAndReplace');
    expect(replaces.map((s) => [s.search, s.replace])).toEqual([
      ['count', 'total'],
      ['total', 'sum'],
    ]);
    const accepted = await rowsOf(page, 'nes/accept');
    expect(accepted).toHaveLength(2);
    expect(accepted[0]).toContain(`"suggestionId":"${renames[0]!.suggestionId}"`);
    expect(accepted[1]).toContain(`"suggestionId":"${replaces[1]!.suggestionId}"`);
    const rejected = await rowsOf(page, 'nes/reject');
    expect(
      rejected.some(
        (text) =>
          text.includes(`"suggestionId":"${renames[1]!.suggestionId}"`) &&
          text.includes('"reason":"rejected"'),
      ),
    ).toBe(true);
    // Each accepted suggestion's text change went to the agent as an incremental didChange.
    const changes = await rowsOf(page, 'document/didChange');
    expect(changes.some((text) => text.includes('"text":"total += 1;\\nlog(total"'))).toBe(true);
    expect((await filtered(page, 'nes/')).invalid).toBe(0);
    expect((await filtered(page, 'document/')).invalid).toBe(0);
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
