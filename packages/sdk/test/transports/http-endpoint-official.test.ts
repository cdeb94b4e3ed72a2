/**
 * The official SDK's Streamable HTTP and WebSocket clients (`@agentclientprotocol/sdk/experimental/
 * http-client`, `…/ws-client`) against our `/acp` endpoint hosting our `Agent`: a prompted turn with
 * its receipt and a permission round trip, then a second connection resuming the session with replay.
 */
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import {
  type ClientContext,
  client as officialClient,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Connection } from '../../src/rpc/index.js';
import { type AcpTransportServer, listenAcp } from '../../src/transports/index.js';

function permissionAgent(): Agent {
  return new Agent({
    info: { name: 'acp-kit-test-agent', version: '0.0.0' },
    replay: 'as-retained',
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      await session.running();
      const answer = await session.requestPermission(
        { title: 'write file', options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] },
        client,
      );
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: `permission: ${answer.outcome.outcome}` });
      await session.idle('end_turn');
    },
  });
}

let server: AcpTransportServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(agent: Agent): Promise<AcpTransportServer> {
  server = await listenAcp({
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
  });
  return server;
}

type Profile = 'http' | 'websocket';

function officialSession<T>(
  listening: AcpTransportServer,
  profile: Profile,
  op: (ctx: ClientContext, updates: UpdateSessionNotification[]) => Promise<T>,
): Promise<T> {
  const headers = { Authorization: `Bearer ${listening.token}` };
  const stream =
    profile === 'http'
      ? createHttpStream(listening.url, { headers })
      : createWebSocketStream(listening.webSocketUrl, { headers, WebSocket: WebSocket as never });
  const updates: UpdateSessionNotification[] = [];
  const app = officialClient({ name: 'interop' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async () => ({
      outcome: { outcome: 'selected', optionId: 'allow' },
    }));
  return app.connectWith(stream, async (ctx) => {
    await ctx.request('initialize', { protocolVersion: 2, info: { name: 'official', version: '2.4.0' } });
    return op(ctx, updates);
  });
}

describe.each<Profile>(['http', 'websocket'])('the official %s client against listenAcp', (profile) => {
  it('completes a prompt with its receipt and a permission round trip, lists and resumes with replay', async () => {
    const listening = await serve(permissionAgent());
    const { sessionId, messageId } = await officialSession(listening, profile, async (ctx, updates) => {
      const { sessionId } = await ctx.request('session/new', { cwd: '/repo' });
      const { messageId } = await ctx.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      });
      await vi.waitFor(() => expect(updates.at(-1)?.update).toMatchObject({ state: 'idle' }), {
        timeout: 10_000,
      });
      const texts = updates.flatMap((u) =>
        u.update.sessionUpdate === 'agent_message_chunk' ? [u.update] : [],
      );
      expect(JSON.stringify(texts)).toContain('permission: selected');
      return { sessionId, messageId };
    });
    expect(typeof messageId).toBe('string');

    const replayed = await officialSession(listening, profile, async (ctx, updates) => {
      const listed = await ctx.request('session/list', {});
      expect(listed.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(sessionId);
      await ctx.request('session/resume', { sessionId, cwd: '/repo', replayFrom: { type: 'start' } });
      // The answer follows the replay on the session's stream, as on stdio.
      return updates;
    });
    expect(replayed.find((u) => u.update.sessionUpdate === 'user_message')?.update).toMatchObject({
      messageId,
    });
  });
});
