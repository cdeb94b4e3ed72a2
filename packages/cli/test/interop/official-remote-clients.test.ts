/**
 * The official SDK's remote clients — Streamable HTTP (`…/experimental/http-client`) and WebSocket
 * (`…/experimental/ws-client`) — drive a real `acp-kit agent --listen` process through the v2
 * lifecycle: initialize, session/new, a prompt with its receipt, a permission round trip, idle,
 * session/list, and a second connection resuming the session with replay.
 */
import { client as officialV1Client } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import {
  type ClientContext,
  client as officialClient,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { type ListeningAgent, listeningAgent, requireBuild } from '../harness.js';

let agent: ListeningAgent;
let httpUrl: string;
beforeAll(async () => {
  requireBuild();
  agent = await listeningAgent(['--chunk-delay', '0']);
  httpUrl = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(agent.stderr())![1]!;
});
afterAll(async () => {
  await agent?.stop();
});

type Profile = 'http' | 'websocket';

function officialSession<T>(
  profile: Profile,
  op: (ctx: ClientContext, updates: UpdateSessionNotification[], asked: unknown[]) => Promise<T>,
): Promise<T> {
  const headers = { Authorization: `Bearer ${agent.token}` };
  const stream =
    profile === 'http'
      ? createHttpStream(httpUrl, { headers })
      : createWebSocketStream(httpUrl.replace(/^http/, 'ws'), { headers, WebSocket: WebSocket as never });
  const updates: UpdateSessionNotification[] = [];
  const asked: unknown[] = [];
  const app = officialClient({ name: 'interop' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params }) => {
      asked.push(params);
      const option = (params as { options: { optionId: string; kind: string }[] }).options.find(
        (o) => o.kind === 'allow_once',
      )!;
      return { outcome: { outcome: 'selected', optionId: option.optionId } };
    });
  return app.connectWith(stream, async (ctx) => {
    const init = await ctx.request('initialize', {
      protocolVersion: 2,
      info: { name: 'official', version: '2.4.0' },
    });
    expect(init).toMatchObject({ protocolVersion: 2 });
    return op(ctx, updates, asked);
  });
}

const isIdle = (u: UpdateSessionNotification): boolean =>
  u.update.sessionUpdate === 'state_update' && (u.update as { state?: string }).state === 'idle';

describe.each<Profile>(['http', 'websocket'])(
  'the official %s client against acp-kit agent --listen',
  (profile) => {
    it('runs the v2 lifecycle: prompt with receipt, permission, idle, list, resume with replay', async () => {
      const { sessionId, messageId } = await officialSession(profile, async (ctx, updates, asked) => {
        const { sessionId } = await ctx.request('session/new', { cwd: '/repo' });
        const { messageId } = await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: '/write notes.txt' }],
        });
        await vi.waitFor(() => expect(updates.some(isIdle)).toBe(true), { timeout: 10_000 });
        expect(asked).toHaveLength(1);
        expect(asked[0]).toMatchObject({ sessionId });
        const receipt = updates.find((u) => u.update.sessionUpdate === 'user_message');
        expect(receipt?.update).toMatchObject({ messageId });
        return { sessionId, messageId };
      });

      const replayed = await officialSession(profile, async (ctx, updates) => {
        const listed = await ctx.request('session/list', {});
        expect(listed.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(sessionId);
        await ctx.request('session/resume', { sessionId, cwd: '/repo', replayFrom: { type: 'start' } });
        return updates.map((u) => u.update);
      });
      expect(replayed.filter((u) => u.sessionUpdate === 'user_message')).toEqual([
        expect.objectContaining({ messageId }),
      ]);
    });
  },
);

describe('the official v1 client over Streamable HTTP', () => {
  it('is served v1 through negotiation, per connection, with a permission round trip', async () => {
    const permissions: unknown[] = [];
    const app = officialV1Client({ name: 'official-v1-http' }).onRequest(
      'session/request_permission',
      async ({ params }) => {
        permissions.push(params);
        const allow = params.options.find((option) => option.kind.startsWith('allow')) ?? params.options[0]!;
        return { outcome: { outcome: 'selected', optionId: allow.optionId } };
      },
    );
    const stream = createHttpStream(httpUrl, { headers: { Authorization: `Bearer ${agent.token}` } });
    const outcome = await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: 'official-v1', version: '2.4.0' },
      });
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt('/write notes.txt');
      session.dispose();
      return { init, response };
    });
    expect(outcome.init).toMatchObject({ protocolVersion: 1, agentInfo: { name: 'acp-kit-agent' } });
    expect(outcome.response).toMatchObject({ stopReason: 'end_turn' });
    expect(permissions).toHaveLength(1);
  });
});
