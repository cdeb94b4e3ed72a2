/**
 * `acp-kit serve --listen … -- acp-kit agent`: the reference agent as a stdio child behind the
 * gateway, one process per connection, reached by the official SDK's HTTP client and by ours; a
 * refused handshake is logged; no agent process outlives its connection or the gateway.
 */
import { connectWebSocket } from '@acp-kit/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import {
  client as officialClient,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BIN, clientOver, idleCount } from '../harness.js';
import { type Gateway, startGateway } from './gateway.js';

let gateway: Gateway | undefined;
afterEach(() => {
  gateway?.kill();
  gateway = undefined;
});

async function start(): Promise<Gateway> {
  gateway = await startGateway([process.execPath, BIN, 'agent', '--chunk-delay', '0']);
  return gateway;
}

const agentPids = (g: Gateway): number[] =>
  [...g.stderr().matchAll(/agent pid (\d+)\n/g)].map((m) => Number(m[1]));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const isIdle = (u: UpdateSessionNotification): boolean =>
  u.update.sessionUpdate === 'state_update' && (u.update as { state?: string }).state === 'idle';

describe('acp-kit serve -- acp-kit agent', () => {
  it('serves the official HTTP client a prompt with its receipt and idle, then stops that agent process', async () => {
    const g = await start();
    const updates: UpdateSessionNotification[] = [];
    const app = officialClient({ name: 'official-through-serve' }).onNotification(
      'session/update',
      ({ params }) => {
        updates.push(params);
      },
    );
    const stream = createHttpStream(g.url, { headers: { Authorization: `Bearer ${g.token}` } });
    const messageId = await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request('initialize', {
        protocolVersion: 2,
        info: { name: 'official', version: '2.4.0' },
      });
      expect(init).toMatchObject({ protocolVersion: 2 });
      const { sessionId } = await ctx.request('session/new', { cwd: '/repo' });
      const { messageId } = await ctx.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      });
      await vi.waitFor(() => expect(updates.some(isIdle)).toBe(true), { timeout: 10_000 });
      return messageId as string;
    });
    expect(updates.find((u) => u.update.sessionUpdate === 'user_message')?.update).toMatchObject({
      messageId,
    });
    expect(g.stderr()).toMatch(/connection \S+ \(http\) from 127\.0\.0\.1: agent pid \d+/);
    const [pid] = agentPids(g);
    expect(pid).toBeDefined();
    await vi.waitFor(() => expect(alive(pid!)).toBe(false), { timeout: 60_000 });
  });

  it('serves connectWebSocket the same turn; SIGTERM of the gateway leaves no agent process behind', async () => {
    const g = await start();
    const t = await clientOver(await connectWebSocket(g.url.replace(/^http/, 'ws'), { token: g.token }));
    const sessionId = await t.client.newSession('/repo');
    const messageId = await t.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await idleCount(t, 1);
    expect(t.updates().find((u) => u.sessionUpdate === 'user_message')).toMatchObject({ messageId });
    const pids = agentPids(g);
    expect(pids).toHaveLength(1);
    expect(alive(pids[0]!)).toBe(true);
    const exited = new Promise((resolve) => g.child.once('exit', resolve));
    g.child.kill('SIGTERM');
    await exited;
    expect(pids.filter(alive)).toEqual([]);
  });

  it('logs a handshake refused for a bad token and starts no agent for it', async () => {
    const g = await start();
    const response = await fetch(g.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 2 } }),
    });
    expect(response.status).toBe(401);
    await vi.waitFor(() => expect(g.stderr()).toMatch(/acp-kit serve: refused 127\.0\.0\.1 with HTTP 401/), {
      timeout: 10_000,
    });
    expect(agentPids(g)).toEqual([]);
  });
});
