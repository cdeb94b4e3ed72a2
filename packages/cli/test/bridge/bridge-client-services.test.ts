/**
 * `acp-kit bridge --serve v2` serves the v1 agent's file-system requests itself: the official SDK's
 * v1 fixture agent writes a file through its client, the file is on disk and the v2 client sees the
 * write as a diff; with `--no-client-services` the agent is told `fs: false` and its write is
 * refused. (Every other case is in @acp-kit/v1-compat's client-services-through-bridge test.)
 */
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTransport } from '@acp-kit/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, clientOver, requireBuild, type TestClient, tempDir, textOf } from '../harness.js';

const V1_AGENT = fileURLToPath(
  new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url),
);
const temp = tempDir();
beforeAll(requireBuild);
afterAll(() => temp.cleanup());
const open: TestClient[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.client.close();
});

async function bridged(flags: string[]): Promise<TestClient> {
  const transport = spawnTransport(
    process.execPath,
    [BIN, 'bridge', '--serve', 'v2', ...flags, '--', process.execPath, '--import', 'tsx', V1_AGENT],
    { name: 'bridge' },
  );
  const t = await clientOver(transport);
  open.push(t);
  return t;
}

/** Has the agent write `file` through its client; the outcomes of the capabilities and the write. */
async function writeThroughClient(t: TestClient, cwd: string, file: string): Promise<unknown[]> {
  const sessionId = await t.client.newSession(cwd);
  const steps = [
    { capabilities: true },
    { request: 'fs/write_text_file', params: { path: file, content: 'hi\n' } },
  ];
  await t.client.promptToEnd(sessionId, [{ type: 'text', text: `client ${JSON.stringify(steps)}` }]);
  const messages = t.client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'agent_message');
  return JSON.parse(textOf(messages.at(-1)?.content ?? [])) as unknown[];
}

describe('acp-kit bridge --serve v2 and the v1 client services', () => {
  it('writes the file the agent writes and shows the v2 client the diff', { timeout: 60_000 }, async () => {
    const cwd = realpathSync(temp.dir);
    mkdirSync(join(cwd, 'on'));
    const file = join(cwd, 'on', 'hello.txt');
    const t = await bridged([]);
    const [caps, written] = await writeThroughClient(t, join(cwd, 'on'), file);
    expect(caps).toEqual({ result: expect.objectContaining({ terminal: true }) });
    expect(written).toEqual({ result: {} });
    expect(readFileSync(file, 'utf8')).toBe('hi\n');
    const diffs = t
      .updates()
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.kind === 'edit')
      .map((u) => (u as { content?: unknown }).content);
    expect(diffs).toEqual([[{ type: 'diff', changes: [{ operation: 'add', path: file, newText: 'hi\n' }] }]]);
  });

  it('with --no-client-services tells the agent fs: false and refuses its write', {
    timeout: 60_000,
  }, async () => {
    const cwd = realpathSync(temp.dir);
    mkdirSync(join(cwd, 'off'));
    const file = join(cwd, 'off', 'hello.txt');
    const t = await bridged(['--no-client-services']);
    const [caps, written] = await writeThroughClient(t, join(cwd, 'off'), file);
    expect(caps).toEqual({
      result: expect.objectContaining({ fs: { readTextFile: false, writeTextFile: false }, terminal: false }),
    });
    expect(written).toEqual({ error: expect.objectContaining({ code: -32601 }) });
    expect(() => readFileSync(file)).toThrow();
  });
});
