/**
 * #40 item 15: `acp-kit proxy --log` writes every prompt and reply that crosses the proxy, so its
 * file is readable by its owner only (0600) — a new one, and one that existed readable by others —
 * before anything is written; a `--log` that cannot be opened stops the proxy with the reason.
 */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnTransport } from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, clientOver, requireBuild, tempDir } from '../harness.js';
import { proxyLine, REFERENCE_AGENT, spawnChain } from './chain-process.js';

beforeAll(requireBuild);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('acp-kit proxy --log', () => {
  it('writes the conversation to a file readable by its owner only, also one that existed readable by others', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const fresh = join(dir, 'fresh.ndjson');
    const existing = join(dir, 'existing.ndjson');
    writeFileSync(existing, '');
    chmodSync(existing, 0o644);
    const chain = spawnChain(
      [proxyLine('--name', 'one', '--log', fresh), proxyLine('--name', 'two', '--log', existing)],
      REFERENCE_AGENT,
    );
    cleanups.push(async () => void (await chain.shutdown({ graceMs: 500 })));
    const t = await clientOver(chain);
    const sessionId = await t.client.newSession(dir);
    const end = await t.client.promptToEnd(sessionId, [{ type: 'text', text: 'a private prompt' }]);
    expect(end.stopReason).toBe('end_turn');
    expect([mode(fresh), mode(existing)]).toEqual(['600', '600']);
    for (const log of [fresh, existing]) expect(readFileSync(log, 'utf8')).toContain('a private prompt');
  });

  it('exits 1 naming the file when the log cannot be opened, before serving anything', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    let stderr = '';
    const proxy = spawnTransport(
      process.execPath,
      [BIN, 'proxy', '--log', join(dir, 'missing', 'log.ndjson')],
      {
        name: 'acp-kit proxy',
        onStderr: (text) => {
          stderr += text;
        },
      },
    );
    const exit = await proxy.shutdown({ graceMs: 5_000 });
    expect(exit.code).toBe(1);
    expect(stderr).toMatch(/^acp-kit proxy: --log ENOENT: .*missing\/log\.ndjson/m);
  });
});
