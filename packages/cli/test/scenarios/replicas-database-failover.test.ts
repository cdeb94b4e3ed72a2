import type { PgBouncer, ReplicationPair } from '@acp-kit/history-postgres/testing';
import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clientOverWebSocket,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  type TestClient,
  scenarioPostgres,
} from '../harness.js';

type Update = SessionNotification['update'];

const text = (value: string): [ContentBlock] => [{ type: 'text', text: value }];
const LONG = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');

const turnEnds = (t: TestClient) =>
  t
    .updates()
    .filter(
      (u) =>
        u.sessionUpdate === 'state_update' &&
        (u as { state?: string }).state === 'idle' &&
        typeof (u as { stopReason?: unknown }).stopReason === 'string',
    ) as (Update & { stopReason: string })[];

const chunks = (t: TestClient) => t.updates().filter((u) => u.sessionUpdate === 'agent_message_chunk').length;

async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  seen: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${seen()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const messages = (t: TestClient, sessionId: string) =>
  t.client.store
    .snapshot(sessionId)
    .messages.map((m) => [
      m.kind,
      m.messageId,
      m.content.map((b) => (b as { text?: string }).text ?? '').join(''),
    ]);

/** `GET /health` of a listening agent: its status and report. */
async function health(agent: ListeningAgent): Promise<{ status: number; report: Record<string, unknown> }> {
  const url = new URL(agent.url.replace(/^ws/, 'http'));
  url.pathname = '/health';
  const response = await fetch(url);
  return { status: response.status, report: (await response.json()) as Record<string, unknown> };
}

describe('acp-kit agent --history with a primary and a standby when the primary dies and the standby is promoted', () => {
  let pair: ReplicationPair | undefined;
  const agents: ListeningAgent[] = [];
  const bouncers: PgBouncer[] = [];
  beforeAll(async () => {
    requireBuild();
    // Installs Debian's PostgreSQL when missing; the pair below uses its binaries.
    await (await scenarioPostgres()).stop();
  }, 180_000);
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.stop()));
    for (const bouncer of bouncers.splice(0)) await bouncer.stop();
    await pair?.stop();
    pair = undefined;
  });

  /**
   * The three-replica failover, the replicas given both servers directly or through one
   * session-pooling pgbouncer per server; `/health` names the address the replicas connect to.
   */
  async function threeReplicasFailOver(through: 'direct' | 'pgbouncer'): Promise<void> {
    const { startReplicationPair, startPgBouncer } = await import('@acp-kit/history-postgres/testing');
    pair = await startReplicationPair({ synchronous: true });
    const { primary, standby } = pair;
    let url = pair.multiHostUrl;
    const address = { primary: `127.0.0.1:${primary.port}`, standby: `127.0.0.1:${standby.port}` };
    if (through === 'pgbouncer') {
      const toPrimary = await startPgBouncer({ host: '127.0.0.1', port: primary.port }, 'session');
      bouncers.push(toPrimary);
      const toStandby = await startPgBouncer({ host: '127.0.0.1', port: standby.port }, 'session');
      bouncers.push(toStandby);
      address.primary = `127.0.0.1:${toPrimary.port}`;
      address.standby = `127.0.0.1:${toStandby.port}`;
      url = `postgres://acp@${address.primary},${address.standby}/postgres?target_session_attrs=read-write`;
    }
    const args = ['--history', url, '--chunk-delay', '20', '--lease-ms', '3000'];
    const [a, b, c] = [await listeningAgent(args), await listeningAgent(args), await listeningAgent(args)];
    agents.push(a, b, c);
    for (const agent of [a, b, c]) {
      const { status, report } = await health(agent);
      expect(status).toBe(200);
      expect(report).toMatchObject({
        ok: true,
        writable: true,
        host: address.primary,
        ownedSessions: 0,
      });
      expect(agent.stderr()).toContain(`history database ${address.primary}: writable`);
    }
    const alice = await clientOverWebSocket(a.url);
    const bob = await clientOverWebSocket(b.url);
    const sessionId = await alice.client.newSession('/work');
    await alice.client.prompt(sessionId, text('/note before the failover'));
    await until(() => turnEnds(alice).length === 1, 'the first turn');
    await bob.client.resume(sessionId, { cwd: '/work' });
    expect((await health(a)).report.ownedSessions).toBe(1);

    // A long reply streams from A; the primary dies under it and the standby is promoted.
    void alice.client.prompt(sessionId, text(LONG)).catch(() => undefined);
    await alice.until(() => chunks(alice) >= 5);
    await primary.kill();
    pair.promote();

    const seen = () =>
      `; alice's ends ${JSON.stringify(turnEnds(alice).map((u) => u.stopReason))}` +
      `\nA's stderr:\n${a.stderr()}\nB's stderr:\n${b.stderr()}`;
    await until(() => turnEnds(alice).length === 2, 'the interrupted turn to end', seen);
    expect(['error', 'cancelled', 'end_turn']).toContain(turnEnds(alice)[1]!.stopReason);
    for (const agent of [a, b, c]) {
      await until(
        async () => (await health(agent)).report.host === address.standby,
        'each replica on the new primary',
        () => agent.stderr(),
      );
      const { status, report } = await health(agent);
      expect(status).toBe(200);
      expect(report).toMatchObject({ ok: true, writable: true, timeline: 2, hostChanges: 1 });
      // The log line follows within a second (it is written on a change of host or writability).
      await until(
        () => agent.stderr().includes(`history database ${address.standby}: writable (timeline 2)`),
        'the move in the replica’s log',
        () => agent.stderr(),
      );
    }
    expect(Number((await health(b)).report.listenReconnects)).toBeGreaterThan(0);

    // The next turn runs (prompted on another replica), and reaches both clients live.
    await bob.client.prompt(sessionId, text('/note after the failover'));
    await until(() => turnEnds(alice).length === 3, 'the next turn on A’s client', seen);

    // A fresh client on the third replica replays the session: every message both clients hold, once.
    const carol = await clientOverWebSocket(c.url);
    await carol.client.resume(sessionId, { cwd: '/work', replay: true });
    await until(
      () =>
        messages(carol, sessionId).length > 0 &&
        messages(carol, sessionId).length === messages(alice, sessionId).length,
      'the fresh client’s replay',
      () =>
        `; carol ${JSON.stringify(messages(carol, sessionId))}, alice ${JSON.stringify(messages(alice, sessionId)).slice(0, 400)}`,
    );
    const replayed = messages(carol, sessionId);
    expect(new Set(replayed.map((m) => `${m[0]} ${m[1]}`)).size).toBe(replayed.length);
    expect(JSON.stringify(replayed)).toContain('before the failover');
    expect(JSON.stringify(replayed)).toContain('after the failover');
    // Alice was there from the start: the replay is her transcript (Bob joined after the first turn).
    expect(replayed).toEqual(messages(alice, sessionId));

    // The old primary comes back as a primary on its old address: nothing is written to it.
    await primary.start();
    await bob.client.prompt(sessionId, text('/note with the old primary back'));
    await until(() => turnEnds(alice).length === 4, 'the turn with the old primary back', seen);
    for (const agent of [a, b, c]) expect((await health(agent)).report.host).toBe(address.standby);
  }

  it('three replicas move to the new primary by themselves: the turn cut by the SIGKILL ends with a stop reason, the next one runs, a fresh client replays every acknowledged message once, and /health reports the move', async () => {
    await threeReplicasFailOver('direct');
  });

  it('the same through one session-pooling pgbouncer per server, the replicas given both pgbouncers', async (context) => {
    const { hasPgBouncer } = await import('@acp-kit/history-postgres/testing');
    // scripts/ensure-pgbouncer.sh installs it (CI runs it).
    if (!hasPgBouncer()) context.skip();
    await threeReplicasFailOver('pgbouncer');
  });

  it('a replica whose database cannot be written answers session/prompt with an error (no hang), reports it on /health, and runs prompts again once a standby is promoted', async () => {
    const { startReplicationPair } = await import('@acp-kit/history-postgres/testing');
    pair = await startReplicationPair({ synchronous: true });
    const a = await listeningAgent(['--history', pair.multiHostUrl, '--lease-ms', '3000']);
    agents.push(a);
    const alice = await clientOverWebSocket(a.url);
    const sessionId = await alice.client.newSession('/work');
    await alice.client.prompt(sessionId, text('/note first'));
    await until(() => turnEnds(alice).length === 1, 'the first turn');

    await pair.primary.kill();
    await until(
      async () => (await health(a)).status === 503,
      'health to say it cannot write',
      () => a.stderr(),
    );
    expect((await health(a)).report).toMatchObject({ ok: false, writable: false });
    let answer: unknown;
    try {
      answer = await alice.client.prompt(sessionId, text('/note while no primary'));
    } catch (error) {
      answer = error;
    }
    // Answered, not left hanging: a retryable error saying the history cannot be written.
    expect(answer).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/session history cannot be written right now.*send it again/),
      data: { retryable: true },
    });

    pair.promote();
    await until(
      async () => (await health(a)).status === 200,
      'health after the promotion',
      () => a.stderr(),
    );
    const before = turnEnds(alice).length;
    await alice.client.prompt(sessionId, text('/note after the promotion'));
    await until(() => turnEnds(alice).length === before + 1, 'a turn after the promotion');
    expect(turnEnds(alice).at(-1)?.stopReason).toBe('end_turn');
  });
});
