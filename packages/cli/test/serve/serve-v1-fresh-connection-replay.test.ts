/**
 * `acp-kit serve --v1`: every connection runs its own bridge, so a client that comes back on a fresh
 * connection meets a bridge that did not see the session live. A v1 agent whose replay lacks a
 * message it streamed live (a warning at the start of each turn, as codex-acp streams for a model
 * it does not know) must not shift the IDs of the replies after it: a client that holds the live
 * conversation and resumes with replay on a fresh connection keeps every message under its ID with
 * its content (issue 39: one ID never names two contents; a client holding the live conversation
 * never has content overwritten).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectHttp } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, clientOver, idleCount, textOf } from '../harness.js';
import { type Gateway, startGateway } from './gateway.js';

const V1_AGENT = [
  process.execPath,
  '--import',
  'tsx',
  fileURLToPath(new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url)),
];

let gateway: Gateway | undefined;
let dir: string | undefined;
let refused: ChildProcess | undefined;
afterEach(() => {
  if (refused !== undefined && refused.exitCode === null && refused.signalCode === null)
    refused.kill('SIGKILL');
  refused = undefined;
  gateway?.kill();
  gateway = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Stops a gateway with SIGTERM and waits until it has exited. */
async function stop(running: Gateway): Promise<void> {
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  await exited;
}

/** Starts the gateway with the v1 agent's environment (the child inherits it at spawn). */
async function gatewayWith(env: Record<string, string>, flags: string[] = []): Promise<Gateway> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return await startGateway(V1_AGENT, ['--v1', ...flags]);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe('acp-kit serve --v1: a replay on a fresh connection', () => {
  it('keeps every live message under its ID and content when the agent replays less than it streamed', {
    timeout: 60_000,
  }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'acp-kit-fresh-replay-'));
    gateway = await gatewayWith({ V1_DIVERGE: 'live-notice', V1_HISTORY: join(dir, 'agent-history.json') });
    const live = await clientOver(await connectHttp(gateway.url, { token: gateway.token }));
    const sessionId = await live.client.newSession(dir);
    await live.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await idleCount(live, 1);
    await live.client.prompt(sessionId, [{ type: 'text', text: 'again' }]);
    await idleCount(live, 2);
    const before = live.client.store
      .snapshot(sessionId)
      .messages.map((m) => ({ kind: m.kind, messageId: m.messageId, text: textOf(m.content) }));
    expect(before.map((m) => m.text)).toEqual([
      'hello',
      'Warning: unknown model.',
      'echo: hello',
      'again',
      'Warning: unknown model.',
      'echo: again',
    ]);
    live.client.close();

    // The same conversation store, on a fresh connection: a client that reconnects.
    const fresh = await clientOver(await connectHttp(gateway.url, { token: gateway.token }), {
      store: live.client.store,
    });
    await fresh.client.resume(sessionId, { cwd: dir, replay: true });
    const replayedIds = new Set(
      fresh
        .updates()
        .filter((u) => 'messageId' in u)
        .map((u) => (u as { messageId: string }).messageId),
    );
    const after = fresh.client.store
      .snapshot(sessionId)
      .messages.map((m) => ({ kind: m.kind, messageId: m.messageId, text: textOf(m.content) }));
    // Nothing the client held changed content, and no message is there twice.
    for (const message of before) expect(after).toContainEqual(message);
    expect(after).toHaveLength(before.length);
    // The replies the agent replayed came back under their live IDs.
    for (const reply of before.filter((m) => m.text.startsWith('echo: ')))
      expect(replayedIds).toContain(reply.messageId);
    fresh.client.close();

    // The gateway's ledgers go with it.
    const ledgers = /message-ID ledgers of the connections' bridges: (\S+)/.exec(gateway.stderr())?.[1];
    expect(ledgers).toBeDefined();
    expect(existsSync(ledgers!)).toBe(true);
    const exited = new Promise((resolve) => gateway!.child.once('exit', resolve));
    gateway.child.kill('SIGTERM');
    await exited;
    expect(existsSync(ledgers!)).toBe(false);
  });
});

describe('acp-kit serve --v1 --history: a replay after the gateway restarted', () => {
  it('keeps every live message once, under its live ID, with its live content', {
    timeout: 60_000,
  }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'acp-kit-restart-replay-'));
    const env = { V1_DIVERGE: 'live-notice', V1_HISTORY: join(dir, 'agent-history.json') };
    const ids = join(dir, 'ids.ndjson');
    gateway = await gatewayWith(env, ['--history', ids]);
    expect(gateway.stderr()).toContain(`message IDs kept across restarts in ${ids}`);
    const live = await clientOver(await connectHttp(gateway.url, { token: gateway.token }));
    const sessionId = await live.client.newSession(dir);
    await live.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await idleCount(live, 1);
    await live.client.prompt(sessionId, [{ type: 'text', text: 'again' }]);
    await idleCount(live, 2);
    const before = live.client.store
      .snapshot(sessionId)
      .messages.map((m) => ({ kind: m.kind, messageId: m.messageId, text: textOf(m.content) }));
    expect(before.map((m) => m.text)).toEqual([
      'hello',
      'Warning: unknown model.',
      'echo: hello',
      'again',
      'Warning: unknown model.',
      'echo: again',
    ]);

    // The gateway stops while the live connection is still open, and a new one starts on the same file.
    await stop(gateway);
    live.client.close();
    expect(statSync(ids).mode & 0o777).toBe(0o600);
    gateway = await gatewayWith(env, ['--history', ids]);

    const fresh = await clientOver(await connectHttp(gateway.url, { token: gateway.token }), {
      store: live.client.store,
    });
    await fresh.client.resume(sessionId, { cwd: dir, replay: true });
    const replayed = fresh
      .updates()
      .filter((u) => 'messageId' in u)
      .map((u) => (u as { messageId: string }).messageId);
    const after = fresh.client.store
      .snapshot(sessionId)
      .messages.map((m) => ({ kind: m.kind, messageId: m.messageId, text: textOf(m.content) }));
    // Every live message once, under its live ID, with its live content.
    expect(after).toEqual(before);
    // The replies the agent replayed came back under their live IDs.
    for (const reply of before.filter((m) => m.text.startsWith('echo: ')))
      expect(replayed).toContain(reply.messageId);
    fresh.client.close();
    await stop(gateway);
  });

  it('refuses a --history file that is not a ledger: exit 2, naming the file and the line', {
    timeout: 30_000,
  }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'acp-kit-bad-ledger-'));
    const notes = join(dir, 'notes.md');
    const text = '# My notes\nnot a ledger\n';
    writeFileSync(notes, text);
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--listen', '127.0.0.1:0', '--v1', '--history', notes, '--', ...V1_AGENT],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    refused = child;
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain(`acp-kit serve: ID ledger ${notes} is damaged: line 1 is not JSON`);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr).not.toContain('each connection runs');
    expect(readFileSync(notes, 'utf8')).toBe(text);
  });
});
