import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintTranscript } from '@acp-kit/conformance';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../harness.js';
import { spawnListeningAgent } from '../../src/listen/spawn-listening-agent.js';
import { InspectorBrowser, initializeAndCreateSession, prompt, waitForText } from './inspector-page.js';
import { type InspectorProcess, startInspectorProcess } from './inspector-process.js';

const FIXTURE_AGENT = fileURLToPath(
  new URL('../../../conformance/test/fixtures/fixture-agent.mjs', import.meta.url),
);
const V1_AGENT = fileURLToPath(
  new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url),
);
const HOSTILE_AGENT = fileURLToPath(new URL('./fixtures/hostile-agent.mjs', import.meta.url));
const BIG_AGENT = fileURLToPath(new URL('./fixtures/big-session-agent.mjs', import.meta.url));
const OFFICIAL_V2_AGENT = fileURLToPath(
  new URL('../../../conformance/test/fixtures/official-sdk-agent.ts', import.meta.url),
);

/** Zed's codex-acp (a published v1 agent, devDependency): its Node entry, which execs the platform binary. */
const CODEX_ACP = createRequire(import.meta.url).resolve('@zed-industries/codex-acp/bin/codex-acp.js');
const codexStarts =
  spawnSync(process.execPath, [CODEX_ACP, '--help'], { encoding: 'utf8', timeout: 60_000 }).status === 0;

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** PIDs of live processes whose environment carries `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

const browser = new InspectorBrowser();
const { problems } = browser;
const inspect = (args: string[], env?: NodeJS.ProcessEnv) => browser.inspect(args, env);
const finish = (page: Page, inspector: InspectorProcess) => browser.finish(page, inspector);

beforeAll(() => browser.start());
afterAll(() => browser.stop());

describe('acp-kit inspect in Chromium', () => {
  it('drives the reference agent: a /write permission answered in the page, every message validated, an export that lints clean', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, BIN, 'agent']);
    // The token left the address bar once the page took it.
    expect(page.url()).not.toContain('token');
    const sessionId = await initializeAndCreateSession(page);
    await expect(page.locator('#agent-info').textContent()).resolves.toContain('acp-kit-agent');

    await prompt(page, '/write notes.txt');
    const permission = page.locator('.permission');
    await permission.waitFor();
    await expect(permission.textContent()).resolves.toContain('Allow: /write notes.txt');
    await permission.locator('button[data-option-id="allow"]').click();
    const session = page.locator(`section.session[data-session-id="${sessionId}"]`);
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await waitForText(page, `${inSession} .message.agent_message`, 'Permission granted: done.');
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');
    await expect(session.locator('.message.user_message .text').allTextContents()).resolves.toEqual([
      '/write notes.txt',
    ]);
    await expect(page.locator('#permissions .permission').count()).resolves.toBe(0);

    // Every message both ways is listed and valid against the v2 schema; the lint found nothing.
    const rows = page.locator('#traffic-body tr.row');
    const methods = await page.locator('#traffic-body tr.row td.method').allTextContents();
    for (const method of [
      'initialize',
      'session/new',
      'session/prompt',
      'session/request_permission',
      'session/update',
    ])
      expect(methods).toContain(method);
    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks.length).toBe(await rows.count());
    expect(checks.filter((check) => check !== 'valid (v2)')).toEqual([]);
    await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);

    // The permission answer travelled client → agent as a response to the agent's request.
    await page.fill('#filter-method', 'session/request_permission');
    await expect
      .poll(() => page.locator('#traffic-body tr.row td.dir').allTextContents())
      .toEqual(['agent → client', 'client → agent']);
    await page.fill('#filter-method', '');
    await expect.poll(() => rows.count()).toBe(checks.length);

    const download = page.waitForEvent('download');
    await page.click('#export');
    const file = await (await download).path();
    const transcript = readFileSync(file, 'utf8');
    const lint = lintTranscript(transcript);
    expect(lint.findings).toEqual([]);
    expect(lint.messages).toBe(checks.length);
    const cli = spawnSync(process.execPath, [BIN, 'lint', file], { encoding: 'utf8' });
    expect(cli.status).toBe(0);

    // Imported back, offline: the same messages, validated and linted, and the conversation rebuilt.
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-import-'));
    try {
      const copy = join(dir, 'session.ndjson');
      writeFileSync(copy, transcript);
      await page.setInputFiles('#import', copy);
      await page
        .locator('#status', { hasText: `offline: session.ndjson (${checks.length} message(s))` })
        .waitFor();
      await expect.poll(() => rows.count()).toBe(checks.length);
      const imported = await page.locator('#traffic-body tr.row .validity').allTextContents();
      expect(imported.filter((check) => check !== 'valid (v2)')).toEqual([]);
      await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);
      await waitForText(page, `${inSession} .message.agent_message .text`, 'Permission granted: done.');
      // A line that is not a transcript entry is listed where it stood, as a parse error.
      const lines = transcript.trimEnd().split('\n');
      writeFileSync(copy, [lines[0], '{"dir": "sideways"', ...lines.slice(1)].join('\n'));
      await page.setInputFiles('#import', []);
      await page.setInputFiles('#import', copy);
      await expect.poll(() => rows.count()).toBe(checks.length + 1);
      await expect(
        page.locator('#traffic-body tr.row').nth(1).locator('.validity').textContent(),
      ).resolves.toBe('parse error: not JSON');
      await page.click('#back-to-live');
      await page.locator('#status', { hasText: 'connected to the inspector' }).waitFor();
      await expect.poll(() => rows.count()).toBe(checks.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await finish(page, inspector);
  });

  it('renders what the reference agent reports: config options as controls, the command palette, a tool call with its terminal, a plan, notices, usage, an elicitation form, a compaction and session info', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, BIN, 'agent']);
    const sessionId = await initializeAndCreateSession(page);
    const inSession = `section.session[data-session-id="${sessionId}"]`;

    // Config options (v2's modes are options of category mode) are controls; a change goes to the agent.
    const mode = page.locator('#session-controls select[data-config-id="mode"]');
    await mode.waitFor();
    await expect(mode.inputValue()).resolves.toBe('code');
    await expect(page.locator('#session-controls .config-option').first().textContent()).resolves.toContain(
      '(mode)',
    );
    await mode.selectOption('ask');
    await page.locator('#log', { hasText: 'mode set to ask' }).waitFor();
    await expect(mode.inputValue()).resolves.toBe('ask');
    await mode.selectOption('code');
    await page.locator('#log', { hasText: 'mode set to code' }).waitFor();

    // The palette lists the session's commands as the prompt starts with "/", and the keyboard picks one.
    await page.locator('#prompt').focus();
    await page.keyboard.type('/');
    const palette = page.locator('#palette');
    await palette.waitFor();
    const names = await palette
      .locator('[role=option]')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-command')));
    expect(names).toEqual(expect.arrayContaining(['run', 'ask', 'compact', 'title']));
    await page.keyboard.type('ru');
    await expect(palette.locator('[role=option]').allTextContents()).resolves.toEqual([
      expect.stringContaining('/run'),
    ]);
    await page.keyboard.press('Enter');
    await expect(page.locator('#prompt').inputValue()).resolves.toBe('/run ');
    await expect(palette.isHidden()).resolves.toBe(true);
    await page.keyboard.type('ls -la');
    await page.keyboard.press('Enter');

    // /run: a plan, a tool call whose content is the display terminal (its output inline), a notice, usage.
    const call = page.locator(`${inSession} .tool-call`);
    await waitForText(page, `${inSession} .tool-call .status`, 'completed');
    await expect(call.locator('.title').textContent()).resolves.toBe('Run: ls -la');
    await expect(call.locator('.who').textContent()).resolves.toBe('tool call (execute)');
    await expect(call.locator('.terminal-command').textContent()).resolves.toMatch(/^\$ ls -la/);
    await expect(call.locator('.terminal-output').textContent()).resolves.toContain(
      'simulated by acp-kit agent: nothing was executed',
    );
    await expect(call.locator('.terminal-exit').textContent()).resolves.toBe('exited with code 0');
    await expect(call.locator('.tool-content').textContent()).resolves.toBe('4 line(s) of simulated output');
    await expect(page.locator(`${inSession} .plan li`).allTextContents()).resolves.toEqual([
      'completed: Run ls -la',
      'completed: Report the result',
    ]);
    await waitForText(page, `${inSession} .notice .title`, 'Simulated: nothing was executed');
    await waitForText(page, `${inSession} .usage`, 'context: 96 of 200000 tokens');
    await waitForText(page, `${inSession} .message.agent_message .text`, 'Ran ls -la (simulated).');
    // A display terminal shown inside its tool call is not listed a second time.
    await expect(page.locator(`${inSession} .display-terminal`).count()).resolves.toBe(0);

    // /ask: an elicitation form built from the requested schema, answered in the page.
    await prompt(page, '/ask Which colour?');
    const form = page.locator('#permissions form.elicitation');
    await form.waitFor();
    await expect(form.locator('p').first().textContent()).resolves.toContain('Which colour?');
    await expect(form.locator('input[name="answer"]').getAttribute('required')).resolves.toBe('');
    await form.locator('input[name="answer"]').fill('teal');
    await form.locator('button.accept').click();
    await waitForText(page, `${inSession} .message.agent_message .text`, 'You answered: teal');
    await expect(page.locator('#permissions .ask').count()).resolves.toBe(0);

    // /title: session info; /compact: a compaction whose summary streams, then completes.
    await prompt(page, '/title Inspector tour');
    await waitForText(page, `${inSession} .session-info`, 'title "Inspector tour"');
    await waitForText(page, `${inSession} h3`, 'Inspector tour — session');
    await prompt(page, '/compact');
    await waitForText(page, `${inSession} .compaction .status`, 'completed');
    await expect(page.locator(`${inSession} .compaction .text`).textContent()).resolves.not.toBe('');
    // A plain prompt: the turn's usage comes with its idle.
    await prompt(page, 'hello there');
    await waitForText(page, `${inSession} .usage`, 'last turn:');

    // Every prompt was reconciled with its receipt: no entry is still pending.
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');
    await expect(page.locator(`${inSession} .message.local-pending`).count()).resolves.toBe(0);
    const userIds = await page
      .locator(`${inSession} .message.user_message`)
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-message-id')));
    expect(userIds.length).toBe(5);
    expect(new Set(userIds).size).toBe(5);
    expect(userIds.every((id) => id !== null && id !== '')).toBe(true);

    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks.filter((check) => check !== 'valid (v2)')).toEqual([]);
    await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);
    await finish(page, inspector);
  });

  it('withdraws a permission card when the agent withdraws its request, and deletes a session', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, BIN, 'agent']);
    const sessionId = await initializeAndCreateSession(page);
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await prompt(page, '/write later.txt');
    await page.locator('#permissions .permission').waitFor();
    await page.click('#cancel-turn');
    // The agent withdraws its question ($/cancel_request): the card goes, the turn ends cancelled.
    // The history, not the header line: "session/cancel sent" may replace the header line after
    // the withdrawal already arrived.
    await expect
      .poll(() => page.locator('#log-history li').allTextContents())
      .toContainEqual(expect.stringContaining('the agent withdrew its session/request_permission request'));
    await expect.poll(() => page.locator('#permissions .permission').count()).toBe(0);
    await waitForText(page, `${inSession} .state`, 'state: idle (cancelled)');
    await expect.poll(() => page.locator('#waiting li').count()).toBe(0);
    const methods = await page.locator('#traffic-body tr.row td.method').allTextContents();
    expect(methods).toContain('$/cancel_request');
    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks.filter((check) => check !== 'valid (v2)' && !check.startsWith('no v2 schema'))).toEqual([]);

    // One stdio process has one connection: a second client is refused with what to do instead.
    await expect(page.locator('#open-second-client').isDisabled()).resolves.toBe(true);
    await expect(page.locator('#second-client-hint').textContent()).resolves.toContain(
      'a stdio agent has one',
    );
    await page.click('#delete-session');
    await page.locator('#log', { hasText: `session ${sessionId} deleted` }).waitFor();
    await expect.poll(() => page.locator(inSession).count()).toBe(0);
    await page.click('#list-sessions');
    await waitForText(page, '#session-list', 'no sessions');
    await finish(page, inspector);
  });

  it('shows a request the agent never answers with its age', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, HOSTILE_AGENT]);
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await page.click('#initialize');
    await waitForText(page, '#waiting li', 'initialize (id 1) waiting');
    await expect
      .poll(
        async () =>
          Number(/waiting ([\d.]+) s/.exec((await page.locator('#waiting li').textContent()) ?? '')?.[1]),
        {
          timeout: 10_000,
        },
      )
      .toBeGreaterThanOrEqual(2);
    await finish(page, inspector);
  });

  it('replay check: a resume with replay into a fresh store matches the live store of the reference agent', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, BIN, 'agent']);
    const sessionId = await initializeAndCreateSession(page);
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await prompt(page, 'hello');
    await waitForText(page, `${inSession} .state`, 'turns: 1');
    await prompt(page, '/run ls');
    await waitForText(page, `${inSession} .state`, 'turns: 2');
    await page.click('#replay-check');
    const result = page.locator('#replay-result p');
    await result.waitFor();
    await expect(result.textContent()).resolves.toBe(
      `The replay of ${sessionId} matches the live store: 4 message(s), 1 tool call(s), the same IDs, no duplicated content.`,
    );
    await expect(result.getAttribute('class')).resolves.toBe('replay-same');
    // The live store was not touched by the replay: still one copy of each message.
    await expect(page.locator(`${inSession} .message.user_message`).count()).resolves.toBe(2);
    await finish(page, inspector);
  });

  for (const [breakage, expected] of [
    ['replay-duplicate', 'content duplicated by the replay: agent_message'],
    ['replay-new-ids', 'missing from the replay: user_message'],
  ] as const) {
    it(`replay check: shows the difference of an agent that breaks ${breakage}`, async () => {
      const { page, inspector } = await inspect(['--', process.execPath, FIXTURE_AGENT, '--break', breakage]);
      const sessionId = await initializeAndCreateSession(page);
      await prompt(page, 'hello world');
      await waitForText(page, `section.session[data-session-id="${sessionId}"] .state`, 'state: idle');
      await page.click('#replay-check');
      await page.locator('#replay-result p.replay-differs').waitFor();
      await waitForText(page, '#replay-result li', expected);
      await finish(page, inspector);
    });
  }

  it('finds nothing wrong in a replay still arriving before its resume is answered, nor after', async () => {
    const { page, inspector } = await inspect([
      '--',
      process.execPath,
      BIG_AGENT,
      '--messages',
      '20',
      '--chunks',
      '100',
      '--answer-after',
      '6000',
    ]);
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await page.click('#initialize');
    await page.locator('#log', { hasText: 'initialized (protocol version 2)' }).waitFor();
    await page.fill('#resume-id', 'big-session');
    await page.check('#replay');
    await page.click('#resume');
    const session = 'section.session[data-session-id="big-session"]';
    await page.locator(`${session} .count`, { hasText: '20 message(s)' }).waitFor();
    // The whole replay is in, its answer not yet: the live lint has checked it and found nothing.
    await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);
    await expect(page.locator('#log').textContent()).resolves.not.toContain('resumed with replay');
    await expect(page.locator('#traffic-body').textContent()).resolves.not.toContain('update.session-id');
    await page.locator('#log', { hasText: 'session big-session resumed with replay' }).waitFor();
    await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);
    await finish(page, inspector);
  });

  it('highlights the value an invalid message’s schema issue points at, and filters by kind', async () => {
    const { page, inspector } = await inspect([
      '--',
      process.execPath,
      FIXTURE_AGENT,
      '--break',
      'invalid-update',
    ]);
    const sessionId = await initializeAndCreateSession(page);
    await prompt(page, 'hello');
    await waitForText(page, `section.session[data-session-id="${sessionId}"] .state`, 'state: idle');
    const invalid = page.locator('#traffic-body tr.row.invalid');
    await invalid.first().waitFor();
    await expect(invalid.count()).resolves.toBe(1);
    await expect(invalid.locator('td.method').textContent()).resolves.toBe('session/update');
    const pointer = (await invalid.locator('.issue .pointer').first().textContent()) ?? '';
    expect(pointer).toMatch(/^\/params\/update\/content/);
    const mark = invalid.locator('mark.pointer-hit');
    await expect(mark.count()).resolves.toBe(1);
    // The block lacking its text is the marked value (an issue about a missing property marks its object).
    await expect(mark.getAttribute('data-pointer')).resolves.toBe('/params/update/content');
    await expect(mark.textContent()).resolves.toBe('{\n        "type": "text"\n      }');

    await page.selectOption('#filter-kind', 'notification');
    await expect
      .poll(async () => new Set(await page.locator('#traffic-body tr.row td.kind').allTextContents()))
      .toEqual(new Set(['notification']));
    await page.fill('#filter-session', sessionId);
    await page.fill('#filter-method', 'session/update');
    const shown = await page.locator('#traffic-body tr.row td.session').allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown)).toEqual(new Set([sessionId]));
    await finish(page, inspector);
  });

  it('logs in, then lists, resumes without and with replay, and closes sessions of the reference agent', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, BIN, 'agent', '--require-login']);
    await page.locator('#agent-status', { hasText: 'started' }).waitFor();
    await page.click('#initialize');
    await page.locator('#log', { hasText: 'initialized (protocol version 2)' }).waitFor();
    await expect(page.locator('#agent-info').textContent()).resolves.toContain('"name": "acp-kit-agent"');
    await expect(page.locator('#agent-capabilities').textContent()).resolves.toContain('"delete"');
    await expect(page.locator('#auth-methods li').textContent()).resolves.toContain(
      'Reference login (accepts anyone) (reference, agent)',
    );
    // Before logging in, the agent refuses a session: the page says so and stays usable.
    await page.click('#new-session');
    await page.locator('#log.error', { hasText: 'session/new failed' }).waitFor();
    await page.click('#auth-methods button[data-method-id="reference"]');
    await page.locator('#log', { hasText: 'logged in with reference' }).waitFor();
    await page.click('#new-session');
    const created = page.locator('#log', { hasText: /session \S+ created/ });
    await created.waitFor();
    const sessionId = /session (\S+) created/.exec((await created.textContent()) ?? '')![1]!;
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await prompt(page, 'hello');
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');

    await page.click('#list-sessions');
    const listed = page.locator('#session-list li', { hasText: sessionId });
    await listed.waitFor();
    await listed.locator('button').click();
    await expect(page.locator('#resume-id').inputValue()).resolves.toBe(sessionId);
    // Without replay: the agent sends no history; the page keeps what it holds.
    await page.uncheck('#replay');
    await page.click('#resume');
    await page.locator('#log', { hasText: `session ${sessionId} resumed` }).waitFor();
    await expect(page.locator('#log').textContent()).resolves.not.toContain('with replay');
    await expect(page.locator(`${inSession} .message.user_message .text`).allTextContents()).resolves.toEqual(
      ['hello'],
    );
    await page.click('#close-session');
    await page.locator('#log', { hasText: `session ${sessionId} closed` }).waitFor();
    // With replay, into a view rebuilt from what the agent sends: the same conversation, once.
    await page.check('#replay');
    await page.click('#resume');
    await page.locator('#log', { hasText: `session ${sessionId} resumed with replay` }).waitFor();
    await waitForText(page, `${inSession} .message.agent_message .text`, 'hello');
    await expect(page.locator(`${inSession} .message.user_message .text`).allTextContents()).resolves.toEqual(
      ['hello'],
    );
    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks.filter((check) => check !== 'valid (v2)')).toEqual([]);
    await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);
    await finish(page, inspector);
  });

  it('drives an agent written with the official SDK’s v2 API: prompt, receipt, replay check', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, '--import', 'tsx', OFFICIAL_V2_AGENT]);
    const sessionId = await initializeAndCreateSession(page);
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await expect(page.locator('#agent-info').textContent()).resolves.toContain('official-sdk-fixture');
    await prompt(page, 'hello official agent');
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');
    const user = page.locator(`${inSession} .message.user_message`);
    await expect(user.locator('.text').allTextContents()).resolves.toEqual(['hello official agent']);
    await expect(user.getAttribute('data-origin')).resolves.toBe('agent');
    await expect(page.locator(`${inSession} .message.agent_message`).count()).resolves.toBeGreaterThan(0);
    await page.click('#replay-check');
    await page.locator('#replay-result p.replay-same').waitFor();
    await expect(page.locator('#replay-result p').textContent()).resolves.toContain(
      'matches the live store: 2 message(s)',
    );
    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks.filter((check) => check !== 'valid (v2)')).toEqual([]);
    await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);
    await finish(page, inspector);
  });

  it.skipIf(!codexStarts)(
    'drives the real codex-acp (v1, through the bridge) offline: login, its mode and model options as controls, its commands in the palette',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-codex-home-'));
      const cwd = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-codex-cwd-'));
      try {
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          CODEX_HOME: home,
          OPENAI_API_KEY: 'sk-acp-kit-offline',
        };
        delete env.CODEX_API_KEY;
        // Its model endpoint is a closed port on 127.0.0.1: nothing leaves the machine.
        const endpoint = `http://127.0.0.1:${await closedPort()}/v1`;
        const { page, inspector } = await inspect(
          ['--v1', '--', process.execPath, CODEX_ACP, '-c', `openai_base_url="${endpoint}"`],
          env,
        );
        try {
          await page.locator('#agent-status', { hasText: 'started' }).waitFor();
          await page.fill('#cwd', cwd);
          await page.click('#initialize');
          await page
            .locator('#log', { hasText: 'initialized (protocol version 2)' })
            .waitFor({ timeout: 60_000 });
          await expect(page.locator('#agent-info').textContent()).resolves.toContain('"name": "codex-acp"');
          const login = page.locator('#auth-methods button[data-method-id="openai-api-key"]');
          await expect(login.count()).resolves.toBe(1);
          await page.click('#new-session');
          await page
            .locator('#log.error', { hasText: 'Authentication required' })
            .waitFor({ timeout: 60_000 });
          await login.click();
          await page
            .locator('#log', { hasText: 'logged in with openai-api-key' })
            .waitFor({ timeout: 60_000 });
          await page.click('#new-session');
          await page.locator('#log', { hasText: /session \S+ created/ }).waitFor({ timeout: 60_000 });
          const mode = page.locator('#session-controls select[data-config-id="mode"]');
          await mode.waitFor();
          await expect(mode.inputValue()).resolves.toBe('read-only');
          await expect(
            page.locator('#session-controls select[data-config-id="model"]').count(),
          ).resolves.toBe(1);
          await expect(
            page.locator('#session-controls select[data-config-id="reasoning_effort"]').count(),
          ).resolves.toBe(1);
          await mode.selectOption('auto');
          await page.locator('#log', { hasText: 'mode set to auto' }).waitFor({ timeout: 60_000 });
          await expect(mode.inputValue()).resolves.toBe('auto');
          // Its slash commands arrive as an update once the session is open.
          await page.locator('#prompt').focus();
          await page.keyboard.type('/');
          await expect
            .poll(() => page.locator('#palette [role=option]').count(), { timeout: 30_000 })
            .toBeGreaterThan(0);
          await page.keyboard.press('Escape');
          await expect(page.locator('#palette').isHidden()).resolves.toBe(true);
          const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
          expect(checks.filter((check) => check !== 'valid (v2)')).toEqual([]);
        } finally {
          // Closed before the agent's processes are killed below, so the page never sees its inspector gone.
          await finish(page, inspector);
        }
      } finally {
        // Left behind only if the inspector failed to stop it (the test's own processes included).
        for (const pid of processesWith(`CODEX_HOME=${home}`)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Ended meanwhile.
          }
        }
        rmSync(home, { recursive: true, force: true });
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  it('pins the violation of an agent that never reports the user message to the prompt it broke', async () => {
    const { page, inspector } = await inspect([
      '--',
      process.execPath,
      FIXTURE_AGENT,
      '--break',
      'no-user-message',
    ]);
    const sessionId = await initializeAndCreateSession(page);
    await prompt(page, 'hello');
    await waitForText(page, `section.session[data-session-id="${sessionId}"] .state`, 'state: idle');
    await waitForText(page, '#lint-summary', 'prompt.user-message');
    const flagged = page.locator('#traffic-body tr.row.has-findings');
    const findings = await flagged.locator('.finding').allTextContents();
    expect(findings.some((text) => text.includes('user-message'))).toBe(true);
    // The finding sits on the prompt's own messages (its request or its receipt), not elsewhere.
    const flaggedMethods = await flagged.locator('td.method').allTextContents();
    expect(new Set(flaggedMethods)).toEqual(new Set(['session/prompt']));
    await expect(page.locator('#lint-summary .lint-failed').textContent()).resolves.toContain('user-message');

    // The sequence diagram (the docs' renderer) draws one arrow per message and the violation as a
    // warning note right under the prompt message it concerns.
    const rowCount = await page.locator('#traffic-body tr.row').count();
    const arrowLabels = async (): Promise<string[]> =>
      (await page.locator('#diagram svg.seq .seq-arrow .seq-label').allTextContents()).filter((t) =>
        t.startsWith('#'),
      );
    await expect.poll(async () => (await arrowLabels()).length).toBe(rowCount);
    const labels = await arrowLabels();
    expect(labels).toContain('#1 initialize');
    // The diagram and the lint are redrawn at most a few times a second: wait for the note.
    await waitForText(page, '#diagram .seq-note-warning', 'prompt.user-message');
    const flaggedIndex = Number(await flagged.first().getAttribute('data-index'));
    // Vertical positions in the drawing: the note sits below the flagged arrow and above the next one.
    const placed = await page.evaluate<{ arrow?: number; next?: number; note?: number }>(`(() => {
      const svg = document.querySelector('#diagram svg.seq');
      const arrowY = (n) => {
        const arrow = [...svg.querySelectorAll('.seq-arrow')].find((node) =>
          node.querySelector('.seq-label')?.textContent?.startsWith('#' + n + ' '));
        return arrow === undefined ? undefined : arrow.getBBox().y;
      };
      const note = [...svg.querySelectorAll('.seq-note-warning')].find((node) =>
        node.textContent.includes('prompt.user-message'));
      return { arrow: arrowY(${flaggedIndex + 1}), next: arrowY(${flaggedIndex + 2}), note: note?.getBBox().y };
    })()`);
    expect(placed.arrow).toBeDefined();
    expect(placed.note).toBeGreaterThan(placed.arrow!);
    if (placed.next !== undefined) expect(placed.note).toBeLessThan(placed.next);
    await finish(page, inspector);
  });

  it('shows a hostile agent’s HTML and a line that is not JSON as text, and runs none of it', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, HOSTILE_AGENT]);
    const message = page.locator(
      'section.session[data-session-id="hostile-session"] .message.agent_message .text',
    );
    await message.waitFor();
    await expect(message.textContent()).resolves.toBe(
      '<img id="injected" src="x" onerror="window.__pwned = 1"><script>window.__pwned = 1</script>',
    );
    const garbage = page.locator('#traffic-body tr.row.garbage');
    await expect(garbage.locator('.validity').textContent()).resolves.toBe('parse error: not JSON');
    await expect(garbage.locator('td.raw').textContent()).resolves.toBe(
      '<b id="garbage-markup">not json</b>',
    );
    await expect(page.locator('#injected, #garbage-markup, main script').count()).resolves.toBe(0);
    await expect(page.evaluate('window.__pwned')).resolves.toBeUndefined();
    await finish(page, inspector);
  });

  it('shows a hostile agent’s 4 MB message and 2 MB garbage line cut short, as text, and lists a flood of 20 000 garbage lines in a window it can filter and scroll', async () => {
    const { page, inspector } = await inspect([
      '--',
      process.execPath,
      HOSTILE_AGENT,
      '--huge',
      '--flood',
      '20000',
    ]);
    const total = 2 + 2 + 20_000;
    await page.locator('#traffic-count', { hasText: `of ${total} message(s)` }).waitFor({ timeout: 120_000 });
    const huge = page.locator(
      'section.session[data-session-id="hostile-session"] .message[data-message-id="huge-message"] .text',
    );
    const text = (await huge.textContent()) ?? '';
    const prefix = '<script>window.__pwned = 2</script>';
    expect(text.slice(0, prefix.length + 3)).toBe(`${prefix}xxx`);
    expect(text.endsWith(`x… (${prefix.length + 4 * 1024 * 1024 - 100_000} more characters)`)).toBe(true);
    expect(text.length).toBeLessThan(100_100);
    await page.selectOption('#filter-kind', 'garbage');
    await page
      .locator('#traffic-count', { hasText: `${2 + 20_000} of ${total}` })
      .waitFor({ timeout: 60_000 });
    // The table shows a window of the flood, not 20 000 rows; the scroll to the top finds the 2 MB line.
    expect(await page.locator('#traffic-body tr.row').count()).toBeLessThan(300);
    await page.evaluate(`(() => {
      const traffic = document.getElementById('traffic-scroll');
      traffic.scrollTop = 0;
      traffic.dispatchEvent(new Event('scroll'));
    })()`);
    await waitForText(page, '#traffic-body tr.row.garbage td.raw', '<i id="huge-garbage">yyy');
    // The message itself (the cell also holds its Show all control).
    const raws = await page.locator('#traffic-body tr.row.garbage td.raw .clip').allTextContents();
    expect(Math.max(...raws.map((raw) => raw.length))).toBeLessThanOrEqual(2001);
    await expect(
      page.locator('#injected, #garbage-markup, #huge-garbage, main script').count(),
    ).resolves.toBe(0);
    await expect(page.evaluate('window.__pwned')).resolves.toBeUndefined();
    expect(inspector.child.exitCode).toBeNull();
    await finish(page, inspector);
  });

  it('shows a crashed agent’s exit code and stderr, stays up, and starts the agent again', async () => {
    const crash = "process.stderr.write('fatal: out of cheese\\n'); process.exit(3)";
    const { page, inspector } = await inspect(['--', process.execPath, '-e', crash]);
    await page
      .locator('#agent-status', { hasText: 'agent run 1 ended: the agent exited with code 3' })
      .waitFor();
    await expect(page.locator('#agent-stderr').textContent()).resolves.toContain('fatal: out of cheese');
    await page.click('#initialize');
    await page.locator('#log', { hasText: 'the agent is not running' }).waitFor();
    await page.click('#restart');
    await page
      .locator('#agent-status', { hasText: 'agent run 2 ended: the agent exited with code 3' })
      .waitFor();
    expect(inspector.child.exitCode).toBeNull();
    await finish(page, inspector);
  });

  it('drives a v1 agent through the bridge (--v1) as a v2 client', async () => {
    const { page, inspector } = await inspect(['--v1', '--', process.execPath, '--import', 'tsx', V1_AGENT]);
    const sessionId = await initializeAndCreateSession(page);
    // The status names the command as given, behind the bridge as acp-kit runs it.
    await expect(page.locator('#agent-status').textContent()).resolves.toMatch(
      /^agent run 1 started: pid \d+: acp-kit bridge --serve v2 -- \S+ --import tsx \S+official-v1-agent\.ts$/,
    );
    await prompt(page, 'hello');
    const session = page.locator(`section.session[data-session-id="${sessionId}"]`);
    await waitForText(page, `section.session[data-session-id="${sessionId}"] .state`, 'state: idle');
    await expect(session.locator('.message.user_message .text').allTextContents()).resolves.toEqual([
      'hello',
    ]);
    await expect(session.locator('.message.agent_message').count()).resolves.toBeGreaterThan(0);
    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks.filter((check) => check !== 'valid (v2)')).toEqual([]);
    await finish(page, inspector);
  });

  it('speaks v1 to an unbridged v1 agent, validates each message against the v1 schema and shows its turn', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, '--import', 'tsx', V1_AGENT]);
    const sessionId = await initializeAndCreateSession(page, 1);
    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks).toEqual(['valid (v1)', 'valid (v1)', 'valid (v1)', 'valid (v1)']);
    await expect(page.locator('#lint-summary').textContent()).resolves.toContain('applies to v2 traffic');
    // Its turn shows in the conversation, read from the v1 traffic as the bridge would convert it.
    await prompt(page, 'hello');
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');
    await expect(page.locator(`${inSession} .message.user_message .text`).allTextContents()).resolves.toEqual(
      ['hello'],
    );
    await expect(page.locator(`${inSession} .message.agent_message`).count()).resolves.toBeGreaterThan(0);
    const after = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(after.filter((check) => check !== 'valid (v1)')).toEqual([]);
    await finish(page, inspector);
  });

  it('shows the conversation of the reference agent initialized as v1 from the page (unbridged): the prompt, a permission request answered, the reply', async () => {
    const { page, inspector } = await inspect(['--', process.execPath, BIN, 'agent']);
    const sessionId = await initializeAndCreateSession(page, 1);
    await expect(page.locator('#agent-info').textContent()).resolves.toContain('protocol version 1');
    const inSession = `section.session[data-session-id="${sessionId}"]`;
    await prompt(page, '/write notes.txt');
    const permission = page.locator('#permissions .permission');
    await permission.waitFor();
    await expect(permission.textContent()).resolves.toContain('Allow: /write notes.txt');
    // The agent asked before it wrote anything: the request is the evidence it took the prompt.
    await waitForText(page, `${inSession} .message.user_message .text`, '/write notes.txt');
    await permission.locator('button[data-option-id="allow"]').click();
    await waitForText(page, `${inSession} .message.agent_message .text`, 'Permission granted: done.');
    await waitForText(page, `${inSession} .state`, 'state: idle (end_turn)');
    await expect(page.locator(`${inSession} .message.user_message .text`).allTextContents()).resolves.toEqual(
      ['/write notes.txt'],
    );
    await expect(page.locator(`${inSession} .message.agent_message`).count()).resolves.toBe(1);
    await expect(page.locator('#permissions .permission').count()).resolves.toBe(0);
    const checks = await page.locator('#traffic-body tr.row .validity').allTextContents();
    expect(checks.length).toBeGreaterThan(6);
    expect(checks.filter((check) => check !== 'valid (v1)')).toEqual([]);
    // A second tab rebuilds the same conversation from the inspector's log.
    const again = await browser.context.newPage();
    await again.goto(inspector.url);
    await waitForText(again, `${inSession} .message.agent_message .text`, 'Permission granted: done.');
    await expect(
      again.locator(`${inSession} .message.user_message .text`).allTextContents(),
    ).resolves.toEqual(['/write notes.txt']);
    await again.close();
    await finish(page, inspector);
  });

  it('inspects a remote agent (--url, --token-file) without handing its token to the page', async () => {
    const agent = await spawnListeningAgent(BIN, []);
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, agent.token, { mode: 0o600 });
      const { page, inspector } = await inspect(['--url', agent.url, '--token-file', tokenFile]);
      await initializeAndCreateSession(page);
      await expect(page.locator('#agent-info').textContent()).resolves.toContain('acp-kit-agent');
      const seen = await page.evaluate<string>(
        'document.documentElement.outerHTML + JSON.stringify(sessionStorage)',
      );
      expect(seen).not.toContain(agent.token);
      await finish(page, inspector);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await agent.stop();
    }
  });

  it('opens a second client on the same session of a remote agent: each sees the other’s turn, and a prompt held behind the other’s turn', async () => {
    const agent = await spawnListeningAgent(BIN, []);
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-two-'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, agent.token, { mode: 0o600 });
      const { page, inspector } = await inspect(['--url', agent.url, '--token-file', tokenFile]);
      const sessionId = await initializeAndCreateSession(page);
      const inA = `#conversation section.session[data-session-id="${sessionId}"]`;
      await prompt(page, 'hello from A');
      await waitForText(page, `${inA} .state`, 'state: idle (end_turn)');

      await page.click('#open-second-client');
      const b = page.locator('section.second-client[data-conn="2"]');
      await page.locator('#log', { hasText: `client 2 attached to ${sessionId}` }).waitFor();
      await expect(b.locator('.client-status').textContent()).resolves.toBe(
        `client 2: attached to ${sessionId}`,
      );
      const inB = `section.second-client[data-conn="2"] section.session[data-session-id="${sessionId}"]`;
      // B's view was rebuilt by the replay: A's turn is there, under the same message IDs.
      await waitForText(page, `${inB} .message.user_message .text`, 'hello from A');
      const idsOf = (selector: string) =>
        page.locator(selector).evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-message-id')));
      expect(await idsOf(`${inB} .message`)).toEqual(await idsOf(`${inA} .message`));

      // B prompts /write: the agent asks B. Meanwhile A's prompt is held behind B's turn.
      await b.locator('textarea.client-prompt').fill('/write from-b.txt');
      await b.locator('button.client-send').click();
      const askB = b.locator('.permission');
      await askB.waitFor();
      await expect(askB.locator('p').textContent()).resolves.toContain('asked of client 2');
      await expect(page.locator('#permissions .permission').count()).resolves.toBe(0);
      await waitForText(page, `${inA} .message.user_message .text`, '/write from-b.txt');
      await prompt(page, 'held behind B');
      await waitForText(page, `${inA} .message.local-pending .text`, 'held behind B');
      await askB.locator('button[data-option-id="allow"]').click();
      // B's turn ends; A's prompt is inserted, reconciled by its messageId, and B sees A's turn too.
      await waitForText(page, `${inB} .message.agent_message .text`, 'Permission granted: done.');
      await expect.poll(() => page.locator(`${inA} .message.local-pending`).count()).toBe(0);
      await waitForText(page, `${inA} .message.user_message[data-origin="agent"] .text`, 'held behind B');
      await waitForText(page, `${inB} .message.user_message .text`, 'held behind B');
      // A watched three turns end; B, attached after the first (a replay carries messages, not state), two.
      await waitForText(page, `${inA} .state`, 'turns: 3');
      await waitForText(page, `${inB} .state`, 'state: idle (end_turn), turns: 2');
      await expect.poll(() => idsOf(`${inB} .message`)).toEqual(await idsOf(`${inA} .message`));
      await expect.poll(() => b.locator('.client-lint').textContent()).toContain('no rule broken so far');
      await expect.poll(() => page.locator('#lint-summary').textContent()).toMatch(/no rule broken so far/);
      await finish(page, inspector);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await agent.stop();
    }
  });

  it('raised no console error and made no request outside the inspector', () => {
    expect(problems).toEqual([]);
  });
});

describe('acp-kit inspect API', () => {
  it('refuses requests without the session token, from another origin, or for another host name', async () => {
    const inspector = await startInspectorProcess(['--', process.execPath, HOSTILE_AGENT]);
    browser.track(inspector);
    const auth = { Authorization: `Bearer ${inspector.token}` };
    const status = async (path: string, init: RequestInit = {}): Promise<number> =>
      (await fetch(`${inspector.origin}${path}`, init)).status;
    expect(await status('/api/send', { method: 'POST', body: '{}' })).toBe(401);
    expect(
      await status('/api/send', {
        method: 'POST',
        body: '{}',
        headers: { Authorization: 'Bearer wrong-token-wrong-token-wrong-token-00' },
      }),
    ).toBe(401);
    expect(
      await status('/api/send', {
        method: 'POST',
        body: '{}',
        headers: { ...auth, Origin: 'http://evil.example' },
      }),
    ).toBe(403);
    expect(
      await status('/api/restart', { method: 'POST', headers: { ...auth, Origin: 'http://localhost:1' } }),
    ).toBe(403);
    // The page itself needs no token (it holds no secret), but only under the inspector's own host name.
    expect(await status('/')).toBe(200);
    const rebound = spawnSync(
      'curl',
      ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', 'Host: attacker.example', `${inspector.origin}/`],
      { encoding: 'utf8' },
    );
    if (rebound.status === 0) expect(rebound.stdout).toBe('421');
    expect(
      await status('/api/send', {
        method: 'POST',
        body: '{"jsonrpc":"2.0","method":"x"}',
        headers: { ...auth, Origin: inspector.origin },
      }),
    ).toBe(204);
    // One stdio process has one connection: no second client, and the answer says what to do instead.
    const connect = await fetch(`${inspector.origin}/api/connect`, {
      method: 'POST',
      headers: { ...auth, Origin: inspector.origin },
    });
    expect(connect.status).toBe(409);
    await expect(connect.text()).resolves.toContain('a stdio agent has one connection');
    await inspector.stop();
    browser.untrack(inspector);
  });

  it('refuses a --url that is neither http(s) nor ws(s) with a usage error', () => {
    const bad = spawnSync(process.execPath, [BIN, 'inspect', '--url', 'ftp://example'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--url expects http(s)://…/acp or ws(s)://…');
  });
});
