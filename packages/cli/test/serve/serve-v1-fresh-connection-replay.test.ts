/**
 * `acp-kit serve --v1`: every connection runs its own bridge, so a client that comes back on a fresh
 * connection meets a bridge that did not see the session live. A v1 agent whose replay lacks a
 * message it streamed live (a warning at the start of each turn, as codex-acp streams for a model
 * it does not know) must not shift the IDs of the replies after it: a client that holds the live
 * conversation and resumes with replay on a fresh connection keeps every message under its ID with
 * its content (issue 39: one ID never names two contents; a client holding the live conversation
 * never has content overwritten).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectHttp } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { clientOver, idleCount, textOf } from '../harness.js';
import { type Gateway, startGateway } from './gateway.js';

const V1_AGENT = [
  process.execPath,
  '--import',
  'tsx',
  fileURLToPath(new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url)),
];

let gateway: Gateway | undefined;
let dir: string | undefined;
afterEach(() => {
  gateway?.kill();
  gateway = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Starts the gateway with the v1 agent's environment (the child inherits it at spawn). */
async function gatewayWith(env: Record<string, string>): Promise<Gateway> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return await startGateway(V1_AGENT, ['--v1']);
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
