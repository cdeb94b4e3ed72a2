/**
 * The official SDK's experimental v2 client (`@agentclientprotocol/sdk/experimental/v2`) drives the
 * real `acp-kit agent` process over stdio. Everything the agent writes is also captured raw and
 * checked against the official SDK's own zod schemas, so a shape it would silently drop still fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type ActiveSessionMessage,
  client as officialClient,
  ndJsonStream,
} from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { officialSchemas } from './agent-process.js';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

type WireMessage = { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown };

/** Spawns `acp-kit agent`, tees its stdout into a raw line log, and returns an official ndjson stream. */
function spawnAgent(): { child: ChildProcess; wire: WireMessage[]; stderr: () => string } {
  const child = spawn(process.execPath, [BIN, 'agent', '--chunk-delay', '0'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const wire: WireMessage[] = [];
  let pending = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr += text;
  });
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') wire.push(JSON.parse(line) as WireMessage);
  });
  return { child, wire, stderr: () => stderr };
}

/** The official SDK reads the same bytes through its own ndjson stream. */
function officialStream(child: ChildProcess) {
  const copy = new PassThrough();
  child.stdout!.on('data', (text: string) => copy.write(text));
  child.stdout!.on('end', () => copy.end());
  return ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(copy) as ReadableStream<Uint8Array>,
  );
}

let running: ChildProcess | undefined;

afterEach(async () => {
  const child = running;
  running = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  await exited;
});

describe('the official v2 client driving acp-kit agent over stdio', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) {
      throw new Error(
        `${BIN} is missing: build the CLI first (npx turbo run build --filter=@acp-kit/cli...)`,
      );
    }
  });

  it('gets an insertion receipt whose messageId matches the user_message update, then idle/end_turn', async () => {
    const schemas = await officialSchemas();
    const errors = vi.spyOn(console, 'error');
    const { child, wire, stderr } = spawnAgent();
    running = child;
    const stream = officialStream(child);

    const outcome = await officialClient({ name: 'interop-official-client' }).connectWith(
      stream,
      async (ctx) => {
        const init = await ctx.request('initialize', {
          protocolVersion: 2,
          info: { name: 'official-client', version: '2.4.0' },
          capabilities: {},
        });
        const session = await ctx.buildSession(process.cwd()).start();
        const response = await session.prompt('hello from the official client');
        const seen: ActiveSessionMessage[] = [];
        for (;;) {
          const message = await session.nextUpdate();
          seen.push(message);
          if (message.kind === 'stop' && seen.some((m) => m.update.sessionUpdate === 'agent_message_chunk')) {
            break;
          }
        }
        session.dispose();
        return { init, sessionId: session.sessionId, response, seen };
      },
    );

    expect(outcome.init.protocolVersion).toBe(2);
    expect(typeof outcome.response.messageId).toBe('string');

    const updates = outcome.seen.map((m) => m.update);
    const userMessages = updates.filter((u) => u.sessionUpdate === 'user_message');
    expect(userMessages).toHaveLength(1);
    expect(userMessages[0]).toMatchObject({
      messageId: outcome.response.messageId,
      content: [{ type: 'text', text: 'hello from the official client' }],
    });
    const chunks = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk');
    expect(chunks.length).toBeGreaterThan(0);
    const last = outcome.seen.at(-1)!;
    expect(last.kind).toBe('stop');
    expect(last.kind === 'stop' && last.stopReason).toBe('end_turn');
    expect(updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'state_update', state: 'running' }),
    );

    // Every session/update and the prompt response on the wire parse with the official schemas.
    const notifications = wire.filter((m) => m.method === 'session/update');
    expect(notifications.length).toBe(outcome.seen.length);
    const rejected = notifications
      .map((m) => ({ m, r: schemas.notification.safeParse(m.params) }))
      .filter(({ r }) => !r.success)
      .map(({ m, r }) => ({ params: m.params, issues: r.success ? [] : r.error.issues }));
    expect(rejected).toEqual([]);
    const promptAnswer = wire.find(
      (m) => m.result !== undefined && (m.result as { messageId?: unknown }).messageId !== undefined,
    );
    expect(schemas.promptResponse.safeParse(promptAnswer?.result).success).toBe(true);
    expect(
      notifications.every((m) => (m.params as { sessionId: string }).sessionId === outcome.sessionId),
    ).toBe(true);
    // The official connection reports invalid messages and failed notifications on console.error.
    expect(errors.mock.calls).toEqual([]);
    errors.mockRestore();
    expect(stderr()).toBe('');
  });
});
