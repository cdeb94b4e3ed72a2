/**
 * `acp-kit inspect --url`, in Debian's Chromium: the inspector cannot restart a remote agent, so the
 * control that reopens its connection says "Reconnect", not "Restart agent" (kept for a stdio agent).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnListeningAgent } from '../../src/listen/spawn-listening-agent.js';
import { BIN } from '../harness.js';
import { InspectorBrowser } from './inspector-page.js';

const browser = new InspectorBrowser();

beforeAll(() => browser.start());
afterAll(() => browser.stop());

describe('acp-kit inspect, the restart control', () => {
  it('reads "Reconnect" for a --url agent and "Restart agent" for a stdio one', async () => {
    const agent = await spawnListeningAgent(BIN, []);
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-inspect-remote-'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, agent.token, { mode: 0o600 });
      const remote = await browser.inspect(['--url', agent.url, '--token-file', tokenFile]);
      await remote.page.locator('#agent-status', { hasText: 'started' }).waitFor();
      await expect
        .poll(() => remote.page.locator('#restart').textContent(), { timeout: 30_000 })
        .toBe('Reconnect');
      const stdio = await browser.inspect(['--', process.execPath, BIN, 'agent']);
      await stdio.page.locator('#agent-status', { hasText: 'started' }).waitFor();
      expect(await stdio.page.locator('#restart').textContent()).toBe('Restart agent');
      expect(browser.problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await agent.stop();
    }
  });
});
