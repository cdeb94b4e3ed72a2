import { spawnSync } from 'node:child_process';
import type { SessionNotification } from '@acp-kit/schema';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  clientOverWebSocket,
  idleCount,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  type TestClient,
  scenarioPostgres,
} from '../harness.js';

const LEASE_MS = 2000;

type Update = SessionNotification['update'];
const idOf = (u: Update): string => (u as { messageId?: string }).messageId ?? '';
const stateOf = (u: Update): string => (u as { state?: string }).state ?? '';

/** Updates as (kind, messageId or state, text) — comparable between clients of different replicas. */
function transcript(updates: readonly Update[]) {
  return updates.map((u) => [
    u.sessionUpdate,
    idOf(u) || stateOf(u),
    JSON.stringify(
      (u as { content?: unknown }).content ?? (u as { stopReason?: unknown }).stopReason ?? null,
    ),
  ]);
}

/** The updates a client got after index `from`. */
const since = (t: TestClient, from: number): Update[] => t.updates().slice(from);

/** Index of the response to a prompt that answered `messageId`, in the client's incoming log. */
const responseIndex = (t: TestClient, messageId: string): number =>
  t.incoming.findIndex((m) => (m.result as { messageId?: string } | undefined)?.messageId === messageId);

/** Index of the first `user_message` update for `messageId` in the client's incoming log. */
const reportIndex = (t: TestClient, messageId: string): number =>
  t.incoming.findIndex(
    (m) =>
      m.method === 'session/update' &&
      (m.params as SessionNotification).update.sessionUpdate === 'user_message' &&
      idOf((m.params as SessionNotification).update) === messageId,
  );

describe('acp-kit agent --history postgres://…: three replicas, the owner killed mid-turn', () => {
  let server: ThrowawayPostgres;
  const agents: ListeningAgent[] = [];
  const clients: TestClient[] = [];
  beforeAll(async () => {
    requireBuild();
    // Debian's PostgreSQL, installed when missing (CI runs as root on a fresh machine).
    server = await scenarioPostgres();
  }, 180_000);
  afterAll(async () => {
    for (const t of clients) t.client.close();
    for (const agent of agents) await agent.stop();
    await server?.stop();
  });

  it('forwards prompts to the owner, fails over to a survivor, and both clients resume there with identical transcripts', async () => {
    const url = await server.createDatabase('failover');
    const start = async () => {
      const agent = await listeningAgent([
        '--history',
        url,
        '--lease-ms',
        String(LEASE_MS),
        '--chunk-delay',
        '40',
      ]);
      agents.push(agent);
      return agent;
    };
    const [a, b, c] = [await start(), await start(), await start()];
    const connect = async (agent: ListeningAgent) => {
      const t = await clientOverWebSocket(agent.url);
      clients.push(t);
      return t;
    };

    // Alice creates the session on replica A, which owns it; Bob follows it on replica B.
    const alice = await connect(a!);
    const bob = await connect(b!);
    const sessionId = await alice.client.newSession('/work');
    await bob.client.resume(sessionId, { cwd: '/work' });
    const aliceFrom = alice.updates().length;
    const bobFrom = bob.updates().length;

    // Bob's prompt reaches replica B, which does not own the session: A inserts it and runs the
    // turn; Bob's receipt comes after he was sent the inserted message, and both see the turn.
    const first = await bob.client.prompt(sessionId, [{ type: 'text', text: 'hello from B' }]);
    expect(reportIndex(bob, first)).toBeGreaterThanOrEqual(0);
    expect(reportIndex(bob, first)).toBeLessThan(responseIndex(bob, first));
    await idleCount(alice, 1);
    await idleCount(bob, 1);
    expect(transcript(since(bob, bobFrom))).toEqual(transcript(since(alice, aliceFrom)));
    expect(
      since(bob, bobFrom)
        .filter((u) => u.sessionUpdate === 'user_message')
        .map(idOf),
    ).toEqual([first]);

    // A long turn starts on A. Behind it wait Alice's second prompt (queued on A: no receipt yet)
    // and Bob's (forwarded, taken by A, also queued there).
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const second = await alice.client.prompt(sessionId, [{ type: 'text', text: long }]);
    const aliceQueued = alice.client.submit(sessionId, [{ type: 'text', text: 'queued on A' }]);
    const bobQueued = bob.client.submit(sessionId, [{ type: 'text', text: 'queued from B' }]);
    const chunksOfSecond = () =>
      bob.updates().filter((u) => u.sessionUpdate === 'agent_message_chunk').length;
    const before = chunksOfSecond();
    await bob.until(() => chunksOfSecond() >= before + 8);

    // The owner dies mid-turn.
    await a!.kill();
    const killedAt = performance.now();

    // A survivor takes the session over once the lease lapses and ends the turn idle/error.
    await idleCount(bob, 2);
    const failoverMs = performance.now() - killedAt;
    const ended = bob
      .updates()
      .filter((u) => u.sessionUpdate === 'state_update' && stateOf(u) === 'idle')
      .at(-1)!;
    expect(ended).toMatchObject({ stopReason: 'error', error: { code: -32603 } });
    // Alice's queued prompt lost its response with A: the outcome is unknown, never guessed.
    await expect(aliceQueued.messageId).rejects.toBeDefined();
    const aliceEntry = alice.client.store
      .snapshot(sessionId)
      .messages.find((m) => m.localId === aliceQueued.localId);
    expect(aliceEntry?.origin).toBe('local-unknown');
    // Bob's was taken by A and not inserted when A died: B knows, and says so.
    await expect(bobQueued.messageId).rejects.toMatchObject({ code: -32603 });

    // Both clients reconnect to survivors (Alice to C, Bob to B again) and replay from the start.
    const alice2 = await connect(c!);
    const bob2 = await connect(b!);
    await alice2.client.resume(sessionId, { cwd: '/work', replay: true });
    await bob2.client.resume(sessionId, { cwd: '/work', replay: true });
    const replayA = alice2.updates();
    const replayB = bob2.updates();
    expect(transcript(replayA)).toEqual(transcript(replayB));
    // Every retained message once, under the ID it was reported with live.
    const opened = (updates: readonly Update[], kind: string) =>
      updates.filter((u) => u.sessionUpdate === kind).map(idOf);
    expect(opened(replayA, 'user_message')).toEqual([first, second]);
    const liveAgentMessages = [...new Set(opened(bob.updates(), 'agent_message_chunk'))];
    expect(opened(replayA, 'agent_message')).toEqual(liveAgentMessages);
    expect(new Set(opened(replayA, 'agent_message')).size).toBe(liveAgentMessages.length);
    // The replayed text of every message is what Bob saw live.
    const text = (updates: readonly Update[], id: string) =>
      updates
        .filter((u) => idOf(u) === id && u.sessionUpdate === 'agent_message_chunk')
        .map((u) => (u as { content: { text: string } }).content.text)
        .join('');
    for (const id of liveAgentMessages) expect(text(replayA, id)).toBe(text(bob.updates(), id));

    // The session is served again: a prompt on C, seen live by Bob on B, same updates.
    const aliceThen = alice2.updates().length;
    const bobThen = bob2.updates().length;
    const third = await alice2.client.prompt(sessionId, [{ type: 'text', text: 'after the failover' }]);
    await idleCount(alice2, 1);
    await idleCount(bob2, 1);
    expect(transcript(since(alice2, aliceThen))).toEqual(transcript(since(bob2, bobThen)));
    expect(opened(since(bob2, bobThen), 'user_message')).toEqual([third]);
    expect(new Set([first, second, third]).size).toBe(3);
    console.log(
      `failover: SIGKILL of the owner → turn ended on a survivor after ${Math.round(failoverMs)} ms (lease ${LEASE_MS} ms)`,
    );
  }, 240_000);
});

describe('acp-kit agent --lease-ms', () => {
  it('is refused without a postgres:// history, and when not a positive whole number', () => {
    requireBuild();
    const run = (args: string[]) =>
      spawnSync(process.execPath, [BIN, 'agent', ...args], { encoding: 'utf8' });
    const alone = run(['--lease-ms', '2000']);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('--lease-ms only applies with --history postgres://');
    const bad = run(['--lease-ms', '0', '--history', 'postgres://nobody@127.0.0.1:1/none']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--lease-ms expects a positive whole number');
  });
});
