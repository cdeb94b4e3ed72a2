/**
 * Real processes end to end: the bridge process (`bridge-main.ts`, i.e. runBridge on stdio) in
 * front of the official SDK's v1 agent, driven by the official experimental v2 client — once with
 * an agent that echoes user messages and once with one that does not; the official v1 client in
 * front of a v2 agent the other way round; and the exits when the wrapped agent fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client as officialV1Client, ndJsonStream as v1NdJsonStream } from '@agentclientprotocol/sdk';
import {
  type ActiveSessionMessage,
  client as officialClient,
  ndJsonStream,
} from '@agentclientprotocol/sdk/experimental/v2';
import { Client, type ClientConnection, Connection, spawnTransport } from '@acp-kit/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bridgeArgs } from './helpers.js';

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

/** `node --import tsx bridge-main.ts v2 node --import tsx official-v1-agent.ts` */
const BRIDGE_ARGS = bridgeArgs('v2', 'official-v1-agent.ts');

function spawnBridge(env: Record<string, string>, args = BRIDGE_ARGS): ChildProcess {
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  children.push(child);
  return child;
}

describe('the official v2 client through the bridge to an official v1 agent', () => {
  for (const echo of ['ids', 'none'] as const) {
    it(`gets a receipt matching the user message and ends at idle/end_turn (echo: ${echo})`, async () => {
      const errors = vi.spyOn(console, 'error');
      const child = spawnBridge(echo === 'ids' ? { V1_ECHO: 'ids' } : {});
      const stream = ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      );
      const outcome = await officialClient({ name: 'interop' }).connectWith(stream, async (ctx) => {
        const init = await ctx.request('initialize', {
          protocolVersion: 2,
          info: { name: 'official-client', version: '2.4.0' },
          capabilities: {},
        });
        const session = await ctx.buildSession('/tmp').start();
        const response = await session.prompt('hello through the bridge');
        const seen: ActiveSessionMessage[] = [];
        for (;;) {
          const message = await session.nextUpdate();
          seen.push(message);
          if (message.kind === 'stop') break;
        }
        session.dispose();
        return { init, response, seen };
      });
      expect(outcome.init).toMatchObject({ protocolVersion: 2, info: { name: 'official-v1-fixture' } });
      if (echo === 'ids') expect(outcome.response.messageId).toBe('u-1');
      else expect(outcome.response.messageId).toMatch(/^m1_/);
      const updates = outcome.seen.map((m) => m.update);
      expect(updates).toContainEqual(
        expect.objectContaining({ sessionUpdate: 'user_message', messageId: outcome.response.messageId }),
      );
      expect(updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').length).toBe(2);
      const last = outcome.seen.at(-1);
      expect(last?.kind === 'stop' && last.stopReason).toBe('end_turn');
      expect(errors.mock.calls).toEqual([]);
      errors.mockRestore();
    });
  }
});

describe('the official v1 client through the bridge to a v2 agent', () => {
  it('gets {stopReason: end_turn} at the end of the turn and the reply as v1 chunks', async () => {
    const errors = vi.spyOn(console, 'error');
    const child = spawnBridge({}, bridgeArgs('v1', 'v2-agent.ts'));
    const stream = v1NdJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    const outcome = await officialV1Client({ name: 'interop-v1' }).connectWith(stream, async (ctx) => {
      const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt('hello v1');
      const text = await session.readText();
      session.dispose();
      return { init, response, text };
    });
    expect(outcome.init).toMatchObject({ protocolVersion: 1, agentInfo: { name: 'v2-fixture' } });
    expect(outcome.response).toEqual({ stopReason: 'end_turn' });
    expect(outcome.text).toBe('echo: hello v1!');
    expect(errors.mock.calls).toEqual([]);
    errors.mockRestore();
  });
});

describe('the bridge process when the v1 agent fails', () => {
  async function promptThrough(text: string) {
    const transport = spawnTransport(process.execPath, BRIDGE_ARGS, { name: 'bridge' });
    const connection: ClientConnection = new Connection(transport);
    const client = new Client(connection, { info: { name: 't', version: '1' } });
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const outcome = await client.prompt(sessionId, [{ type: 'text', text }]).then(
      () => undefined,
      (error: unknown) => error,
    );
    const exit = await transport.exited;
    return { outcome, exit };
  }

  it('answers the pending prompt with a JSON-RPC error naming the exit, then exits 1', async () => {
    const { outcome, exit } = await promptThrough('exit');
    expect(outcome).toMatchObject({ code: -32603, message: expect.stringContaining('exited with code 3') });
    expect(exit.code).toBe(1);
  });

  it('answers the pending prompt with a JSON-RPC error when the v1 agent writes garbage, then exits 1', async () => {
    const { outcome, exit } = await promptThrough('garbage');
    expect(outcome).toMatchObject({ code: -32603, message: expect.stringContaining('not JSON-RPC') });
    expect(exit.code).toBe(1);
  });
});
