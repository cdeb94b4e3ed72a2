/**
 * Issue 40, items 1–4: hostile peers against `acp-kit agent --listen`'s `/acp` endpoint — a flood
 * of half-open sockets, notifications naming made-up sessions, a token file that is not the
 * user's, wrong-token guessing — each with a well-behaved client served on the same server.
 */
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../harness.js';
import { halfOpenFlood, killAll, MiB, madeUpSessions, startAgent, wrongTokens } from './peers.js';

afterEach(() => killAll());

describe('acp-kit agent --listen against hostile peers', () => {
  it('600 half-open sockets from one address: the server holds at most 16 of them, and a client connected before the flood and a new one both finish turns', async () => {
    const agent = await startAgent();
    const report = await halfOpenFlood(agent, 600);
    expect(report.heldByServer).toBeLessThanOrEqual(16);
    expect(report.establishedServed).toBe(true);
    expect(report.newClientServed).toBe(true);
  }, 90_000);

  it('notifications naming 3000 made-up sessions are answered 404 and leave the server’s memory bounded', async () => {
    const agent = await startAgent();
    const report = await madeUpSessions(agent, 3000);
    expect(report.statuses).toEqual({ 404: 3000 });
    // 3000 × 1 KiB IDs kept would be 3 MiB of strings alone (30 MB at the 30 000).
    expect(report.rssGrowth).toBeLessThan(32 * MiB);
    expect(report.goodClientServed).toBe(true);
  }, 90_000);

  it('wrong tokens from one address are throttled with 429 and Retry-After after 20, even for the right token, while another address is served', async () => {
    const agent = await startAgent();
    const report = await wrongTokens(agent, 60);
    // 20 at once, then 2 a second: a guess that came after a refill is answered 401 too.
    const unauthorized = report.statuses[401] ?? 0;
    expect(unauthorized).toBeGreaterThanOrEqual(20);
    expect(unauthorized).toBeLessThanOrEqual(report.most401);
    expect(report.statuses).toEqual({ 401: unauthorized, 429: 60 - unauthorized });
    expect(Number(report.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(report.rightTokenSameAddress).toBe(429);
    expect(report.otherAddressServed).toBe(true);
  }, 60_000);

  it('refuses to start with a 0600 token file owned by another user, and says why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-kit-token-owner-'));
    try {
      const file = join(dir, 'token');
      writeFileSync(file, 'a-token-that-is-long-enough-1234\n', { mode: 0o600 });
      chmodSync(file, 0o600);
      // The tests run as root here; 65534 is "nobody".
      chownSync(file, 65534, 65534);
      const run = spawnSync(
        process.execPath,
        [BIN, 'agent', '--listen', '127.0.0.1:0', '--token-file', file],
        {
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`token file ${file} belongs to user 65534, not to you`);
      expect(run.stderr).not.toContain('listening on');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
