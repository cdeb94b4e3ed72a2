// Regression tests for the reference agent's side of #13 items 5, 6 and 9.
import { getEventListeners } from 'node:events';
import { Connection, createInProcessPair } from '@acp-kit/sdk';
import { describe, expect, it } from 'vitest';
import { createReferenceAgent } from '../../src/agent/reference-agent.js';
import { clientOver, idleCount, type TestClient } from '../harness.js';

type Permission = Parameters<NonNullable<Parameters<typeof clientOver>[1]>['onPermission'] & object>;

async function connect(
  onPermission?: (...args: Permission) => unknown,
): Promise<{ t: TestClient; agent: ReturnType<typeof createReferenceAgent> }> {
  const agent = createReferenceAgent({ chunkDelayMs: 1 });
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide));
  const t = await clientOver(clientSide, onPermission ? { onPermission: onPermission as never } : {});
  return { t, agent };
}

const lastIdle = (t: TestClient) =>
  t
    .updates()
    .filter((u) => u.sessionUpdate === 'state_update' && (u as { state?: string }).state === 'idle')
    .at(-1) as { stopReason?: string; error?: { code: number; message: string } } | undefined;

describe('reference agent turns', () => {
  it('ends a /write turn with stop reason error and the error object when the client answers the permission request with an error', async () => {
    const { t } = await connect(() => {
      throw new Error('the permission dialog crashed');
    });
    const sessionId = await t.client.newSession('/work');
    await t.client.prompt(sessionId, [{ type: 'text', text: '/write notes.txt' }]);
    await idleCount(t, 1);
    expect(lastIdle(t)).toMatchObject({
      stopReason: 'error',
      error: { code: expect.any(Number), message: expect.any(String) },
    });
    t.client.close();
  });

  it('ends a /write turn cancelled, not end_turn, when the client answers the permission request cancelled', async () => {
    const { t } = await connect(() => ({ outcome: { outcome: 'cancelled' } }));
    const sessionId = await t.client.newSession('/work');
    await t.client.prompt(sessionId, [{ type: 'text', text: '/write notes.txt' }]);
    await idleCount(t, 1);
    expect(lastIdle(t)?.stopReason).toBe('cancelled');
    t.client.close();
  });

  it('ends the turn cancelled when session/cancel follows the prompt at once', async () => {
    const { t } = await connect();
    const sessionId = await t.client.newSession('/work');
    for (let round = 1; round <= 3; round++) {
      // Written back to back: the cancel is on the wire right behind the prompt.
      const sent = t.connection.sendRequest('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'a b c d e f g h i j k l m n o p q r s t' }],
      });
      void t.connection.sendNotification('session/cancel', { sessionId });
      await sent.catch(() => undefined);
      await idleCount(t, round);
      expect(lastIdle(t)?.stopReason).toBe('cancelled');
    }
    t.client.close();
  });

  it('leaves no abort listener behind per reply chunk', async () => {
    const { t, agent } = await connect();
    const sessionId = await t.client.newSession('/work');
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    await t.client.prompt(sessionId, [{ type: 'text', text: words }]);
    await idleCount(t, 1);
    const chunks = t.updates().filter((u) => u.sessionUpdate === 'agent_message_chunk').length;
    expect(chunks).toBeGreaterThan(60);
    const signal = agent.sessions.get(sessionId)!.signal;
    expect(getEventListeners(signal, 'abort').length).toBeLessThan(3);
    t.client.close();
  });
});
