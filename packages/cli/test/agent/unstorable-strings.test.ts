/**
 * One rule for strings in every history store (#24 item 4): a string no store can keep unchanged
 * (one with U+0000 or an unpaired surrogate) is refused at the wire with -32602 and its pointer,
 * by the real `acp-kit agent` process, whether it keeps history in memory, SQLite or PostgreSQL —
 * never stored changed, never a -32603 that ends the turn.
 */
import { join } from 'node:path';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess, clientOver, idleCount, requireBuild, tempDir, scenarioPostgres } from '../harness.js';

const temp = tempDir();
let server: ThrowawayPostgres;
beforeAll(async () => {
  requireBuild();
  server = await scenarioPostgres();
}, 180_000);
afterAll(async () => {
  await server?.stop();
  temp.cleanup();
});

async function errorOf(call: Promise<unknown>): Promise<{ code: number; data?: unknown }> {
  try {
    await call;
  } catch (error) {
    return error as { code: number; data?: unknown };
  }
  throw new Error('expected the request to fail');
}

const STORES: [string, () => Promise<string[]>][] = [
  ['memory', async () => []],
  ['SQLite', async () => ['--history', join(temp.dir, 'strings.db')]],
  ['PostgreSQL', async () => ['--history', await server.createDatabase('strings')]],
];

describe.each(STORES)('acp-kit agent with %s history: strings no store keeps unchanged', (_name, args) => {
  it('refuses /title with a NUL or an unpaired surrogate, and a cwd with either, with -32602 and the pointer; the session goes on', async () => {
    const transport = agentProcess(await args());
    try {
      const t = await clientOver(transport);
      const { sessionId } = await t.client.createSession({ cwd: '/repo' });
      for (const text of ['/title a\u0000b', '/title lone \ud800 high']) {
        expect(
          await errorOf(
            t.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }),
          ),
          JSON.stringify(text),
        ).toMatchObject({ code: -32602, data: { pointer: '/params/prompt/0/text' } });
      }
      for (const cwd of ['/repo/a\u0000b', '/repo/\udc00']) {
        expect(
          await errorOf(t.connection.sendRequest('session/new', { cwd })),
          JSON.stringify(cwd),
        ).toMatchObject({ code: -32602, data: { pointer: '/params/cwd' } });
      }
      // Nothing was stored changed, and the session still takes a title.
      await t.client.prompt(sessionId, [{ type: 'text', text: '/title Kept \ud83d\ude00' }]);
      await idleCount(t, 1);
      const listed = await t.connection.sendRequest('session/list', {});
      expect(listed.sessions.map((s) => [s.cwd, s.title])).toEqual([['/repo', 'Kept \ud83d\ude00']]);
    } finally {
      await transport.shutdown();
    }
  });
});
