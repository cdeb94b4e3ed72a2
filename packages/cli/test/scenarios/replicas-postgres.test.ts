import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientOverWebSocket,
  idleCount,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  type TestClient,
  scenarioPostgres,
} from '../harness.js';

/** The updates a client got for its session, as (kind, messageId, state) — comparable across replicas. */
function shape(t: TestClient, from: number) {
  return t
    .updates()
    .slice(from)
    .map((u) => [
      u.sessionUpdate,
      (u as { messageId?: string }).messageId ?? (u as { state?: string }).state ?? '',
    ]);
}

describe('acp-kit agent --history postgres://…: two replicas, one session', () => {
  let server: ThrowawayPostgres;
  const agents: ListeningAgent[] = [];
  beforeAll(async () => {
    requireBuild();
    // Debian's PostgreSQL, installed when missing (CI runs as root on a fresh machine).
    server = await scenarioPostgres();
  }, 180_000);
  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await server?.stop();
  });

  it('shows a turn prompted on one replica live to a client of the other, in the same order, to idle', async () => {
    const url = await server.createDatabase('replicas');
    const a = await listeningAgent(['--history', url, '--chunk-delay', '5']);
    agents.push(a);
    const b = await listeningAgent(['--history', url, '--chunk-delay', '5']);
    agents.push(b);
    const alice = await clientOverWebSocket(a.url);
    const bob = await clientOverWebSocket(b.url);
    const sessionId = await alice.client.newSession('/work');
    await bob.client.resume(sessionId, { cwd: '/work' });
    const aliceFrom = alice.updates().length;
    const bobFrom = bob.updates().length;

    // Prompted on replica A: Bob, on replica B, sees the same turn.
    await alice.client.prompt(sessionId, [{ type: 'text', text: 'hello from A' }]);
    await idleCount(alice, 1);
    await idleCount(bob, 1);
    const turn = shape(alice, aliceFrom);
    expect(turn.length).toBeGreaterThan(3);
    expect(shape(bob, bobFrom)).toEqual(turn);

    // And the other way round: prompted on replica B, Alice sees it with the same message IDs.
    const aliceSecond = alice.updates().length;
    const bobSecond = bob.updates().length;
    await bob.client.prompt(sessionId, [{ type: 'text', text: 'hello from B' }]);
    await idleCount(alice, 2);
    await idleCount(bob, 2);
    expect(shape(alice, aliceSecond)).toEqual(shape(bob, bobSecond));
    const userMessages = alice.updates().filter((u) => u.sessionUpdate === 'user_message');
    expect(new Set(userMessages.map((u) => (u as { messageId: string }).messageId)).size).toBe(2);
  });
});
