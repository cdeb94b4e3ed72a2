/**
 * `acp-kit inspect` as a newcomer meets it (issue 41), in Debian's Chromium: one click from the
 * started agent to a session ready for a prompt (the prompt box refuses input before), a traffic
 * table that lines up at 390 px with long messages clipped and the newest row in view, a
 * second-client panel that tells the truth after a reload, a state line without a stale stop
 * reason, a live lint that does not judge a turn still waiting on a permission, and an import of a
 * file that is not a transcript reported as `acp-kit lint` reports it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnListeningAgent } from '../../src/listen/spawn-listening-agent.js';
import { BIN } from '../harness.js';
import { InspectorBrowser, initializeAndCreateSession, prompt, waitForText } from './inspector-page.js';

const browser = new InspectorBrowser();
const dir = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-first-'));

beforeAll(() => browser.start());
afterAll(async () => {
  await browser.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The lint summary once it covers every message the table lists (the lint runs in a worker). */
async function settledLint(page: Page): Promise<string> {
  let summary = '';
  await expect
    .poll(
      async () => {
        const rows = await page.locator('#traffic-body tr.row').count();
        summary = (await page.locator('#lint-summary').textContent()) ?? '';
        return summary.includes(`lint: ${rows} message(s)`) && !summary.includes('still being checked');
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return summary;
}

describe('acp-kit inspect, the first session', () => {
  it('goes from the started agent to a session ready for a prompt in one click; the prompt box takes no input before; the protocol stays adjustable', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent']);
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await expect(page.locator('#prompt').isDisabled()).resolves.toBe(true);
    await expect(page.locator('#send').isDisabled()).resolves.toBe(true);
    await page.locator('#start-session').click();
    await expect.poll(() => page.locator('#prompt').isEnabled(), { timeout: 30_000 }).toBe(true);
    const sessionId = await page.locator('#session-select').inputValue();
    expect(sessionId).not.toBe('');
    await prompt(page, 'hello');
    await waitForText(
      page,
      `section.session[data-session-id="${sessionId}"] .state`,
      'state: idle (end_turn)',
    );
    // The methods the click sent: initialize, then session/new, nothing else first.
    const methods = await page.locator('#traffic-body tr.row td.method').allTextContents();
    expect(methods.slice(0, 4)).toEqual(['initialize', 'initialize', 'session/new', 'session/new']);
    // Protocol version and capabilities stay adjustable: initialize again with other capabilities.
    await expect(page.locator('#protocol').isEnabled()).resolves.toBe(true);
    await page.locator('#capabilities').fill('{}');
    await page.locator('#initialize').click();
    await page.locator('#log', { hasText: 'initialized (protocol version 2)' }).waitFor();
    // The table renders on the next frame: wait (bounded) for the second initialize's row.
    await expect
      .poll(
        () =>
          page.locator('#traffic-body tr.row').evaluateAll((rows) =>
            rows
              .filter((row) => row.querySelector('td.method')?.textContent === 'initialize')
              .map((row) => row.querySelector('td.raw')?.textContent ?? '')
              .some((text) => text.includes('"capabilities":{}')),
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    // A reload keeps the session: the prompt box is ready at once, no click needed.
    await page.reload();
    await page.locator('#status', { hasText: 'connected to the inspector' }).waitFor();
    await expect.poll(() => page.locator('#prompt').isEnabled(), { timeout: 30_000 }).toBe(true);
    expect(browser.problems).toEqual([]);
    await browser.finish(page, inspector);
  });

  it('at 390 px lines every header up with its cells, clips a long message (expandable), and follows to the newest row', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent'], undefined, {
      width: 390,
      height: 844,
    });
    await initializeAndCreateSession(page);
    // A 1.5 KB message in three words (the reply streams word by word; the table stays whole).
    const long = `please read ${'lorem-ipsum-dolor-sit-amet-'.repeat(56)}`;
    await prompt(page, long);
    await prompt(page, 'short one');
    await waitForText(page, '#traffic-body tr.row td.method', 'session/prompt');
    await expect
      .poll(async () => (await page.locator('#traffic-body tr.row td.raw').allTextContents()).join('\n'))
      .toContain('short one');
    // Following the traffic: the newest rows fill the scrolled view (not the blank end of a tall row).
    await expect
      .poll(() =>
        page.evaluate<boolean>(`(() => {
          const view = document.getElementById('traffic-scroll').getBoundingClientRect();
          const rows = [...document.querySelectorAll('#traffic-body tr.row')].slice(-3);
          return rows.every((row) => {
            const box = row.getBoundingClientRect();
            return box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
          });
        })()`),
      )
      .toBe(true);
    // Every visible header sits over a visible cell of each row, at the same x.
    const layout = await page.evaluate<{ heads: number[][]; rows: number[][][] }>(`(() => {
      const box = (el) => { const r = el.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.width)]; };
      const shown = (el) => getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().width > 0;
      const heads = [...document.querySelectorAll('#traffic thead th')].filter(shown).map(box);
      const rows = [...document.querySelectorAll('#traffic-body tr.row')].map((tr) => [...tr.children].filter(shown).map(box));
      return { heads, rows };
    })()`);
    expect(layout.rows.length).toBeGreaterThan(5);
    for (const row of layout.rows) expect(row).toEqual(layout.heads);
    // No row is taller than a clipped message; the long one expands on request.
    const heights = await page
      .locator('#traffic-body tr.row')
      .evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThanOrEqual(240);
    const longRow = page.locator('#traffic-body tr.row', { hasText: 'lorem-ipsum' }).first();
    const before = (await longRow.boundingBox())!.height;
    await longRow.locator('button.expand').click();
    await expect.poll(async () => (await longRow.boundingBox())!.height).toBeGreaterThan(before);
    await longRow.locator('button.expand').click();
    // Nothing scrolls sideways.
    const sideways = await page.evaluate<number>(`(() => {
      const s = document.getElementById('traffic-scroll');
      return s.scrollWidth - s.clientWidth;
    })()`);
    expect(sideways).toBeLessThanOrEqual(0);
    expect(browser.problems).toEqual([]);
    await browser.finish(page, inspector);
  });

  it('shows no stop reason of the last turn while a turn waits on a permission, and no live lint finding for that unfinished turn', async () => {
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent']);
    const sessionId = await initializeAndCreateSession(page);
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await prompt(page, 'hello');
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');
    await prompt(page, '/write notes.txt');
    await page.locator('#permissions .permission').waitFor();
    await waitForText(page, `${inSession} .state`, 'state: requires_action');
    const state = (await page.locator(`${inSession} .state`).textContent()) ?? '';
    expect(state).not.toContain('end_turn');
    const summary = await settledLint(page);
    expect(summary).toContain('no rule broken so far');
    expect(summary).not.toMatch(/broken:/);
    await expect(page.locator('#traffic-body .finding[data-rule="state.work-ends"]').count()).resolves.toBe(
      0,
    );
    await page.locator('#permissions button[data-option-id="allow"]').click();
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');
    expect(await settledLint(page)).toContain('no rule broken so far');
    expect(browser.problems).toEqual([]);
    await browser.finish(page, inspector);
  });

  it('reports an imported file that is not a transcript with the transcript.format MUST failure acp-kit lint reports', async () => {
    const file = join(dir, 'notes.ndjson');
    writeFileSync(file, 'these are my notes\n{"todo": "write a client"}\n');
    const cli = spawnSync(process.execPath, [BIN, 'lint', file], { encoding: 'utf8' });
    expect(cli.status).toBe(1);
    expect(cli.stdout + cli.stderr).toContain('transcript.format');
    const { page, inspector } = await browser.inspect(['--', process.execPath, BIN, 'agent']);
    await page.setInputFiles('#import', file);
    await page.locator('#status', { hasText: 'offline: notes.ndjson' }).waitFor();
    await expect
      .poll(() => page.locator('#lint-summary').textContent())
      .toContain('broken: transcript.format');
    await expect(page.locator('#lint-summary .lint-failed').count()).resolves.toBe(1);
    expect(await page.locator('#lint-summary').textContent()).not.toContain('no rule broken');
    // Each line is pinned where it stood, with the lint's words for it.
    await expect(
      page.locator('#traffic-body tr.row').nth(0).locator('.finding[data-rule="transcript.format"]').count(),
    ).resolves.toBe(1);
    expect(browser.problems).toEqual([]);
    await browser.finish(page, inspector);
  });

  it('after a reload shows a second client as attached, and sends as that client', async () => {
    const agent = await spawnListeningAgent(BIN, []);
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, agent.token, { mode: 0o600 });
      const { page, inspector } = await browser.inspect(['--url', agent.url, '--token-file', tokenFile]);
      const sessionId = await initializeAndCreateSession(page);
      await page.click('#open-second-client');
      const b = page.locator('section.second-client[data-conn="2"]');
      await page.locator('#log', { hasText: `client 2 attached to ${sessionId}` }).waitFor();
      await page.reload();
      await page.locator('#status', { hasText: 'connected to the inspector' }).waitFor();
      await expect
        .poll(() => b.locator('.client-status').textContent(), { timeout: 30_000 })
        .toBe(`client 2: attached to ${sessionId}`);
      await b.locator('textarea.client-prompt').fill('from B after the reload');
      await b.locator('button.client-send').click();
      const inB = `section.second-client[data-conn="2"] section.session[data-session-id="${sessionId}"]`;
      await waitForText(page, `${inB} .message.agent_message .text`, 'from B after the reload');
      expect(browser.problems).toEqual([]);
      await browser.finish(page, inspector);
    } finally {
      await agent.stop();
    }
  });
  it("answers /help with the session's commands in the page and sends nothing to an agent that offers no help command", async () => {
    const { page } = await browser.inspect(['--', process.execPath, BIN, 'agent']);
    const sessionId = await initializeAndCreateSession(page);
    // The reference agent announces its slash commands at the session's first turn.
    await prompt(page, 'hello');
    await waitForText(
      page,
      `section.session[data-session-id="${sessionId}"] .state`,
      'state: idle (end_turn)',
    );
    const prompts = () =>
      page
        .locator('#traffic-body tr.row td.method')
        .allTextContents()
        .then((methods) => methods.filter((method) => method === 'session/prompt').length);
    const before = await prompts();
    await prompt(page, '/help');
    await page.locator('#log', { hasText: "This session's commands" }).waitFor();
    await expect(page.locator('#log').textContent()).resolves.toContain('nothing was sent');
    await expect(page.locator('#log').textContent()).resolves.toContain('/run');
    expect(await prompts()).toBe(before);
    await expect(page.locator('#prompt').inputValue()).resolves.toBe('');
    expect(browser.problems).toEqual([]);
  });
});
