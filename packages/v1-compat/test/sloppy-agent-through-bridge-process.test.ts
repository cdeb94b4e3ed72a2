/**
 * What published v1 agents do that the v1 schema does not expect, through the bridge process
 * (`bridge-main.ts v2`, what `acp-kit bridge --serve v2` runs) in front of the official SDK's v1
 * fixture agent, with a v2 client that validates everything it receives:
 *
 * - a `session/load` answered with `null` (the official SDK reads it as `{}`): the resume works,
 *   and the bridge logs a warning naming the agent and the deviation;
 * - a permission request about a tool call never announced with `tool_call`: the bridge announces
 *   it first, so the conversation shows the tool call with its title, kind, locations and input.
 */
import type { ContentBlock, SessionUpdate } from '@acp-kit/schema';
import {
  type ChildProcessTransport,
  Client,
  type ClientConnection,
  type ClientOptions,
  Connection,
  schemaValidator,
  spawnTransport,
} from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { bridgeArgs, textOf, UpdateLog } from './helpers.js';

const CWD = '/tmp';
const TIMEOUT = 60_000;
const text = (t: string): [ContentBlock] => [{ type: 'text', text: t }];
const endsTurn = (u: SessionUpdate): boolean =>
  u.sessionUpdate === 'state_update' && u.state === 'idle' && typeof u.stopReason === 'string';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function startBridge(env: Record<string, string>, options: Partial<ClientOptions> = {}) {
  let stderr = '';
  const waiters = new Set<() => void>();
  /** Resolves once the bridge's stderr contains `expected` (the stderr pipe may lag the answers). */
  const stderrShows = (expected: string): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!stderr.includes(expected)) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  const transport: ChildProcessTransport = spawnTransport(
    process.execPath,
    bridgeArgs('v2', 'official-v1-agent.ts'),
    {
      name: 'bridge',
      env: { ...process.env, ...env },
      onStderr: (t) => {
        stderr += t;
        for (const waiter of [...waiters]) waiter();
      },
    },
  );
  // Strict on the v2 side: anything invalid the bridge sent would fail the client's requests.
  const connection: ClientConnection = new Connection(transport, { validator: schemaValidator });
  const log = new UpdateLog().tap(connection);
  const client = new Client(connection, { info: { name: 'sloppy-agent', version: '1' }, ...options });
  cleanups.push(async () => {
    client.close();
    await transport.shutdown({ graceMs: 2000 });
  });
  await client.initialize();
  const turn = async (sessionId: string, prompt: string): Promise<void> => {
    const ended = log.updates.filter(endsTurn).length;
    await client.prompt(sessionId, text(prompt));
    await log.waitFor(() => log.updates.filter(endsTurn).length > ended);
  };
  return { client, log, turn, stderrShows };
}

describe('a sloppy v1 agent through the bridge process', () => {
  it('resumes a session whose session/load the agent answers with null, and warns naming the agent', {
    timeout: TIMEOUT,
  }, async () => {
    const bridge = await startBridge({ V1_LOAD_NULL: '1' });
    const sessionId = await bridge.client.newSession(CWD);
    await bridge.turn(sessionId, 'one');
    const live = bridge.client.store
      .snapshot(sessionId)
      .messages.map((m) => [m.messageId, textOf(m.content)]);
    await bridge.client.resume(sessionId, { cwd: CWD, replay: true });
    expect(
      bridge.client.store.snapshot(sessionId).messages.map((m) => [m.messageId, textOf(m.content)]),
    ).toEqual(live);
    await bridge.stderrShows(
      'warning: session/load/result on the connection: the v1 agent official-v1-fixture 2.4.0 answered session/load with null instead of an object; taken as {}',
    );
    // The session keeps working after the resume.
    await bridge.turn(sessionId, 'two');
    expect(textOf(bridge.client.store.snapshot(sessionId).messages.at(-1)?.content)).toBe('echo: two');
  });

  it('announces a tool call first named by a permission request before asking about it', {
    timeout: TIMEOUT,
  }, async () => {
    const asked: unknown[] = [];
    const bridge = await startBridge(
      {},
      {
        onPermission: (request) => {
          asked.push(request);
          return { outcome: { outcome: 'selected', optionId: 'yes' } };
        },
      },
    );
    const sessionId = await bridge.client.newSession(CWD);
    await bridge.turn(sessionId, 'ask-unseen');
    expect(asked).toHaveLength(1);
    const toolCalls = bridge.client.store.snapshot(sessionId).toolCalls;
    expect(toolCalls.map((t) => t.fields)).toEqual([
      expect.objectContaining({
        toolCallId: 'unseen-1',
        title: 'Run ls',
        kind: 'execute',
        status: 'pending',
        locations: [{ path: '/tmp/work' }],
        rawInput: { command: 'ls -la' },
      }),
    ]);
    // Announced on the wire before the permission request reached the client.
    const announced = bridge.log.wire.findIndex(
      (m) =>
        m.method === 'session/update' &&
        (m.params as { update: { toolCallId?: string } }).update.toolCallId === 'unseen-1',
    );
    const request = bridge.log.wire.findIndex((m) => m.method === 'session/request_permission');
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(announced).toBeLessThan(request);
    expect(textOf(bridge.client.store.snapshot(sessionId).messages.at(-1)?.content)).toBe('asked: selected');
  });

  it('does not announce again a tool call the agent announced before asking', {
    timeout: TIMEOUT,
  }, async () => {
    const bridge = await startBridge(
      {},
      { onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'yes' } }) },
    );
    const sessionId = await bridge.client.newSession(CWD);
    await bridge.turn(sessionId, 'permission');
    // The fixture announces call-1 with tool_call (pending), then completes it: two updates, no third.
    const updates = bridge.log.updates.filter((u) => (u as { toolCallId?: string }).toolCallId === 'call-1');
    expect(updates.map((u) => (u as { status?: string }).status)).toEqual(['pending', 'completed']);
  });
});
