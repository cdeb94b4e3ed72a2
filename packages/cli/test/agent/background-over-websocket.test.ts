/**
 * #30 item 3 over `acp-kit agent --listen` (a real WebSocket to a real child process):
 * `/background <seconds>` keeps its terminal writing after the turn ended idle, and a second
 * client that attaches mid-way (resume with replay) holds the terminal before any list names it,
 * then sees the rest of its output, its exit status, and the list that drops it — in that order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backgroundDropped,
  backgroundListOf,
  clientOverWebSocket,
  isTerminalExit,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  type TestClient,
} from '../harness.js';

describe('acp-kit agent --listen: /background over WebSocket', () => {
  let agent: ListeningAgent;
  const clients: TestClient[] = [];
  beforeAll(async () => {
    requireBuild();
    agent = await listeningAgent(['--chunk-delay', '1']);
  });
  afterAll(async () => {
    for (const t of clients) t.client.close();
    await agent?.stop();
  });

  it('/background 2 outlives its turn, and a client attaching mid-way sees the terminal announced, listed, exited, then dropped', async () => {
    const alice = await clientOverWebSocket(agent.url);
    clients.push(alice);
    const { sessionId } = await alice.client.createSession({ cwd: '/repo' });
    const end = await alice.client.promptToEnd(sessionId, [{ type: 'text', text: '/background 2' }]);
    expect(end.stopReason).toBe('end_turn');
    const outputs = (t: TestClient) => t.updates().filter((u) => u.sessionUpdate === 'terminal_output_chunk');
    await alice.until(() => outputs(alice).length >= 2);

    // Bob attaches while the terminal runs: the replay hands him the terminal and its output so
    // far, then the state as of that position lists it.
    const bob = await clientOverWebSocket(agent.url);
    clients.push(bob);
    await bob.client.resume(sessionId, { cwd: '/repo', replay: true });
    await Promise.all([alice.until(() => backgroundDropped(alice)), bob.until(() => backgroundDropped(bob))]);

    for (const t of [alice, bob]) {
      const all = t.updates();
      const announced = all.findIndex((u) => u.sessionUpdate === 'terminal_update');
      const listed = all.findIndex((u) => (backgroundListOf(u)?.length ?? 0) > 0);
      const exited = all.findIndex(isTerminalExit);
      const drop = all.findIndex((u) => backgroundListOf(u)?.length === 0);
      expect(announced).toBeGreaterThanOrEqual(0);
      expect(announced).toBeLessThan(listed);
      expect(listed).toBeLessThan(exited);
      expect(exited).toBeLessThan(drop);
      expect(all[exited]).toMatchObject({ exitStatus: { exitCode: 0 } });
      // Output keeps coming between the list and the exit: the terminal outlived the turn.
      expect(all.slice(listed, exited).some((u) => u.sessionUpdate === 'terminal_output_chunk')).toBe(true);
    }
    // Bob's first state update is the resume snapshot: idle without a stop reason, the terminal listed.
    const bobFirstState = bob.updates().find((u) => u.sessionUpdate === 'state_update')!;
    expect(bobFirstState).toMatchObject({ state: 'idle', background: [{ type: 'terminal' }] });
    expect((bobFirstState as { stopReason?: unknown }).stopReason).toBeUndefined();
    // Both saw the same output, Bob's first part by replay.
    const text = (t: TestClient) =>
      outputs(t)
        .map((u) => (u as { data: string }).data)
        .join('');
    expect(text(bob)).toBe(text(alice));
  });
});
