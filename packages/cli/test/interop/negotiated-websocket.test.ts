/**
 * One `acp-kit agent --listen` endpoint, two clients at once over real WebSockets on 127.0.0.1:
 * one asks for v1 in `initialize`, the other for v2. Each connection gets the version it asked for
 * (the v1 one through the in-process codec), and both complete a turn.
 */
import { Connection, connectWebSocket } from '@acp-kit/sdk';
import { v1SchemaValidator } from '@acp-kit/v1-compat';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replyTo } from '../../src/agent/reply-model.js';
import { clientOver, listeningAgent, requireBuild } from '../harness.js';

beforeAll(requireBuild);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

describe('acp-kit agent --listen serves v1 and v2 clients on the same endpoint', () => {
  it('negotiates per connection: a v1 and a v2 client each complete a turn at the same time', async () => {
    const agent = await listeningAgent(['--chunk-delay', '0']);
    cleanups.push(() => agent.stop());

    // The v1 client: a raw JSON-RPC peer that checks everything it receives against schema/v1.
    const v1 = new Connection(await connectWebSocket(agent.url, { token: agent.token! }), {
      validator: v1SchemaValidator,
    });
    const v1Updates: { sessionUpdate: string; content?: { text?: string } }[] = [];
    v1.onUnhandledNotification((method, params) => {
      if (method === 'session/update')
        v1Updates.push((params as { update: (typeof v1Updates)[number] }).update);
    });
    v1.listen();
    cleanups.push(() => v1.close());

    // The v2 client: our Client.
    const v2 = await clientOver(await connectWebSocket(agent.url, { token: agent.token! }));
    cleanups.push(() => v2.client.close());

    const v1Init = (await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} })) as {
      protocolVersion: number;
    };
    expect(v1Init.protocolVersion).toBe(1);
    const { sessionId: v1Session } = (await v1.sendRequest('session/new', {
      cwd: '/tmp',
      mcpServers: [],
    })) as {
      sessionId: string;
    };
    const v2Session = await v2.client.newSession('/tmp');

    const v1Turn = v1.sendRequest('session/prompt', {
      sessionId: v1Session,
      prompt: [{ type: 'text', text: 'v1 over websocket' }],
    });
    const submission = v2.client.submit(v2Session, [{ type: 'text', text: 'v2 over websocket' }]);
    const [v1Answer, v2End] = await Promise.all([v1Turn, v2.client.store.turnEnd(submission.localId)]);

    expect(v1Answer).toMatchObject({ stopReason: 'end_turn', usage: { outputTokens: expect.any(Number) } });
    expect(
      v1Updates
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => u.content?.text)
        .join(''),
    ).toBe(replyTo('v1 over websocket').pieces.join(''));
    expect(v1Updates.map((u) => u.sessionUpdate)).not.toContain('state_update');

    expect(v2End).toMatchObject({ messageId: await submission.messageId, stopReason: 'end_turn' });
    expect(v2.updates().map((u) => u.sessionUpdate)).toContain('state_update');
  });
});
