/**
 * `acp-kit serve --v1 -- <v1 agent>`: a v1 agent written with the official SDK's v1 API, behind the
 * gateway and the bridge, serves v2 clients over Streamable HTTP — ours (`connectHttp`) and the
 * official SDK's HTTP client — a prompt with its receipt and the turn's idle. Without `--v1` the
 * gateway relays unchanged, so a v2 client is answered v1; the gateway says which flag it needs.
 */
import { fileURLToPath } from 'node:url';
import { connectHttp } from '@acp-kit/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import {
  client as officialClient,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientOver, idleCount, textOf } from '../harness.js';
import { type Gateway, startGateway } from './gateway.js';

const V1_AGENT = [
  process.execPath,
  '--import',
  'tsx',
  fileURLToPath(new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url)),
];

let gateway: Gateway | undefined;
afterEach(() => {
  gateway?.kill();
  gateway = undefined;
});

describe('acp-kit serve --v1 -- <official-SDK v1 agent>', () => {
  it('serves connectHttp a prompt with its receipt and the idle that ends the turn', async () => {
    gateway = await startGateway(V1_AGENT, ['--v1']);
    const t = await clientOver(await connectHttp(gateway.url, { token: gateway.token }));
    const sessionId = await t.client.newSession('/repo');
    const messageId = await t.client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    await idleCount(t, 1);
    const snapshot = t.client.store.snapshot(sessionId);
    expect(snapshot.messages.find((m) => m.kind === 'user_message')?.messageId).toBe(messageId);
    expect(textOf(snapshot.messages.find((m) => m.kind === 'agent_message')?.content ?? [])).toBe(
      'echo: hello',
    );
    expect(snapshot.state.state).toBe('idle');
    t.client.close();
  });

  it('serves the official HTTP client the same turn', async () => {
    gateway = await startGateway(V1_AGENT, ['--v1']);
    const updates: UpdateSessionNotification[] = [];
    const app = officialClient({ name: 'official-through-serve-v1' }).onNotification(
      'session/update',
      ({ params }) => {
        updates.push(params);
      },
    );
    const stream = createHttpStream(gateway.url, { headers: { Authorization: `Bearer ${gateway.token}` } });
    const turn = await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request('initialize', {
        protocolVersion: 2,
        info: { name: 'official', version: '2.4.0' },
      });
      const { sessionId } = await ctx.request('session/new', { cwd: '/repo' });
      const { messageId } = await ctx.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      });
      await vi.waitFor(() =>
        expect(
          updates.some(
            (u) =>
              u.update.sessionUpdate === 'state_update' &&
              (u.update as { state?: string; stopReason?: string }).stopReason === 'end_turn',
          ),
        ).toBe(true),
      );
      return { init, messageId: messageId as string };
    });
    expect(turn.init).toMatchObject({ protocolVersion: 2 });
    expect(updates.find((u) => u.update.sessionUpdate === 'user_message')?.update).toMatchObject({
      messageId: turn.messageId,
    });
  });
});

describe('acp-kit serve -- <v1 agent> without --v1', () => {
  it('relays the v1 answer unchanged and tells the operator to pass --v1', async () => {
    gateway = await startGateway(V1_AGENT);
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 2, info: { name: 'raw', version: '0' } },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    await vi.waitFor(() =>
      expect(gateway!.stderr()).toContain(
        'the agent answered a v2 client with protocolVersion 1: it is an ACP v1 agent; serve it with acp-kit serve --v1',
      ),
    );
  });
});
