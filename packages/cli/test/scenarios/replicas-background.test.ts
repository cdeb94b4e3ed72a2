/**
 * #30 item 3 on two `acp-kit agent --history postgres://…` replicas: background work survives the
 * client that started it leaving (clients on both replicas see it through to its exit status),
 * and when the replica running it is killed, the replica that takes the session over reports its
 * final status before dropping it from the list, so no client shows it running forever — also
 * when no other replica had the session loaded: the first replica a client resumes it on does.
 */
import type { SessionNotification } from '@acp-kit/schema';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backgroundDropped,
  backgroundListOf,
  clientOverWebSocket,
  isTerminalExit,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  scenarioPostgres,
  type TestClient,
} from '../harness.js';

const LEASE_MS = 2000;

type Update = SessionNotification['update'];
const isOutput = (u: Update): boolean => u.sessionUpdate === 'terminal_output_chunk';

describe('acp-kit agent --history postgres://…: background work on two replicas', () => {
  let server: ThrowawayPostgres;
  const agents: ListeningAgent[] = [];
  const clients: TestClient[] = [];
  beforeAll(async () => {
    requireBuild();
    server = await scenarioPostgres();
  }, 180_000);
  afterAll(async () => {
    for (const t of clients) t.client.close();
    for (const agent of agents) await agent.stop();
    await server?.stop();
  });

  const start = async (url: string) => {
    const agent = await listeningAgent([
      '--history',
      url,
      '--lease-ms',
      String(LEASE_MS),
      '--chunk-delay',
      '1',
    ]);
    agents.push(agent);
    return agent;
  };
  const connect = async (agent: ListeningAgent) => {
    const t = await clientOverWebSocket(agent.url);
    clients.push(t);
    return t;
  };

  it('keeps a background terminal running after the client that started it leaves: clients on both replicas see its output continue and its exit status before it leaves the list', async () => {
    const url = await server.createDatabase('background_survives');
    const [a, b] = [await start(url), await start(url)];
    const alice = await connect(a);
    const carol = await connect(a);
    const bob = await connect(b);
    const sessionId = await alice.client.newSession('/work');
    await carol.client.resume(sessionId, { cwd: '/work' });
    await bob.client.resume(sessionId, { cwd: '/work' });

    const end = await alice.client.promptToEnd(sessionId, [{ type: 'text', text: '/background 3' }]);
    expect(end.stopReason).toBe('end_turn');
    // Alice leaves as soon as her turn ended; Carol (same replica) and Bob (the other) stay.
    alice.client.close();
    const atLeave = new Map([carol, bob].map((t) => [t, t.updates().length]));
    await Promise.all([carol.until(() => backgroundDropped(carol)), bob.until(() => backgroundDropped(bob))]);

    for (const t of [carol, bob]) {
      const all = t.updates();
      const after = all.slice(atLeave.get(t)!);
      const exited = all.findIndex(isTerminalExit);
      const drop = all.findIndex((u) => backgroundListOf(u)?.length === 0);
      expect(after.some(isOutput)).toBe(true);
      expect(all[exited]).toMatchObject({ exitStatus: { exitCode: 0 } });
      expect(exited).toBeLessThan(drop);
      expect(all.findIndex((u) => (backgroundListOf(u)?.length ?? 0) > 0)).toBeLessThan(exited);
    }
    // Both followers saw the same terminal output, in the same order.
    const text = (t: TestClient) =>
      t
        .updates()
        .filter(isOutput)
        .map((u) => (u as { data: string }).data)
        .join('');
    expect(text(bob)).toBe(text(carol));
  });

  it('reports a killed replica’s background terminal as ended (exit status unknown, with a notice saying why) from the replica that takes the session over, before the list drops it', async () => {
    const url = await server.createDatabase('background_orphaned');
    const [a, b] = [await start(url), await start(url)];
    const alice = await connect(a);
    const bob = await connect(b);
    const sessionId = await alice.client.newSession('/work');
    await bob.client.resume(sessionId, { cwd: '/work' });
    const end = await alice.client.promptToEnd(sessionId, [{ type: 'text', text: '/background 120' }]);
    expect(end.stopReason).toBe('end_turn');
    await bob.until(() => bob.updates().filter(isOutput).length >= 2);

    // The replica running the terminal dies; B takes the session over once the lease lapses.
    await a.kill();
    await bob.until(() => backgroundDropped(bob));
    const all = bob.updates();
    const drop = all.findIndex((u) => backgroundListOf(u)?.length === 0);
    const exited = all.findIndex(isTerminalExit);
    const notice = all.findIndex((u) => u.sessionUpdate === 'notice');
    expect(notice).toBeGreaterThanOrEqual(0);
    expect(all[notice]).toMatchObject({ severity: 'error', title: 'Background work was interrupted' });
    expect(notice).toBeLessThan(exited);
    expect(exited).toBeLessThan(drop);
    expect(all[exited]).toMatchObject({ exitStatus: { exitCode: null, signal: null } });
    // The list is dropped by a repeated idle: the turn had ended, nothing ends twice.
    expect(all[drop]).toEqual({ sessionUpdate: 'state_update', state: 'idle', background: [] });
    expect(all.slice(exited + 1).some(isOutput)).toBe(false);

    // A client arriving later on B replays how it ended, and the state lists nothing running.
    const dave = await connect(b);
    await dave.client.resume(sessionId, { cwd: '/work', replay: true });
    await dave.until(() => dave.updates().some((u) => u.sessionUpdate === 'state_update'));
    const replay = dave.updates();
    expect(replay.some(isTerminalExit)).toBe(true);
    expect(replay.find((u) => u.sessionUpdate === 'state_update')).toMatchObject({
      state: 'idle',
      background: [],
    });
  });
  it('ends the work of a replica that died while no other replica had the session loaded, once a client resumes it on a survivor', async () => {
    const url = await server.createDatabase('background_orphaned_unloaded');
    const [a, b] = [await start(url), await start(url)];
    const alice = await connect(a);
    const sessionId = await alice.client.newSession('/work');
    const end = await alice.client.promptToEnd(sessionId, [{ type: 'text', text: '/background 120' }]);
    expect(end.stopReason).toBe('end_turn');
    await alice.until(() => alice.updates().filter(isOutput).length >= 2);

    // A dies with nobody on B: no replica serves the session, so nothing can take it over yet.
    await a.kill();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 500));
    // Erin resumes on B: B loads the session, sees work listed under a lapsed lease, takes the
    // session over and ends that work; Erin is told, and is not left with work running forever.
    const erin = await connect(b);
    await erin.client.resume(sessionId, { cwd: '/work' });
    await erin.until(() => backgroundDropped(erin));
    const all = erin.updates();
    const exited = all.findIndex(isTerminalExit);
    const drop = all.findIndex((u) => backgroundListOf(u)?.length === 0);
    expect(all.find((u) => u.sessionUpdate === 'notice')).toMatchObject({
      severity: 'error',
      title: 'Background work was interrupted',
    });
    expect(exited).toBeGreaterThanOrEqual(0);
    expect(exited).toBeLessThan(drop);
    expect(all[exited]).toMatchObject({ exitStatus: { exitCode: null, signal: null } });
    expect(erin.client.store.snapshot(sessionId).background).toEqual([]);
  });
});
