import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  clientOverWebSocket,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  type TestClient,
  scenarioPostgres,
} from '../harness.js';

type Update = SessionNotification['update'];

const text = (value: string): [ContentBlock] => [{ type: 'text', text: value }];
const LONG = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');

/** The turn-ending idles a client got (a resume's state report has no stop reason). */
const turnEnds = (t: TestClient) =>
  t
    .updates()
    .filter(
      (u) =>
        u.sessionUpdate === 'state_update' &&
        (u as { state?: string }).state === 'idle' &&
        typeof (u as { stopReason?: unknown }).stopReason === 'string',
    ) as (Update & { stopReason: string; error?: { code: number; message: string } })[];

const chunks = (t: TestClient) => t.updates().filter((u) => u.sessionUpdate === 'agent_message_chunk').length;

/** Resolves when `check` holds, polling (stderr has no event to wait on here). */
async function until(
  check: () => boolean,
  what: string,
  timeoutMs = 60_000,
  seen: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      // Printed as well as thrown: a try that is retried and then passes leaves its reason here.
      const message = `timed out waiting for ${what}${seen()}`;
      console.warn(message);
      throw new Error(message);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The messages a client holds, comparable across clients: kind, ID and text. */
const messages = (t: TestClient, sessionId: string) =>
  t.client.store
    .snapshot(sessionId)
    .messages.map((m) => [
      m.kind,
      m.messageId,
      m.content.map((b) => (b as { text?: string }).text ?? '').join(''),
    ]);

describe('acp-kit agent --history postgres://… when PostgreSQL restarts or cannot be reached', () => {
  let server: ThrowawayPostgres;
  const agents: ListeningAgent[] = [];
  beforeAll(async () => {
    requireBuild();
    // Debian's PostgreSQL, installed when missing (CI runs as root on a fresh machine).
    server = await scenarioPostgres();
  }, 180_000);
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.stop();
  });
  afterAll(async () => {
    await server?.stop();
  });

  // The database is down for a short restart (the owner keeps its lease) or for longer than the
  // lease (another replica may take the session over when it is back): either way the turn ends.
  for (const [outage, leaseMs, downMs] of [
    ['a fast restart', '60000', 0],
    ['an outage longer than the lease', '1500', 2500],
  ] as const) {
    it(`ends a turn interrupted by ${outage} once the database is back: one idle/error for the clients of every replica, the failure on stderr, the history intact`, async () => {
      const url = await server.createDatabase(`outage_${leaseMs}`);
      const args = ['--history', url, '--chunk-delay', '20', '--lease-ms', leaseMs];
      const a = await listeningAgent(args);
      agents.push(a);
      const b = await listeningAgent(args);
      agents.push(b);
      const alice = await clientOverWebSocket(a.url);
      const bob = await clientOverWebSocket(b.url);
      const sessionId = await alice.client.newSession('/work');
      await alice.client.prompt(sessionId, text('/note kept across the outage'));
      await until(() => turnEnds(alice).length === 1, 'the note turn');
      await bob.client.resume(sessionId, { cwd: '/work' });

      // A long reply streams from replica A; the database restarts while it does.
      await alice.client.prompt(sessionId, text(LONG));
      await alice.until(() => chunks(alice) >= 5);
      await server.restart({
        // Down until the owner noticed (its turn failed and its idle could not be written), then
        // for as long again as the outage lasts.
        whileDown: async () => {
          // (At most 10 s: an agent that reports nothing must not keep the database down.)
          await until(
            () => /could not be written/.test(a.stderr()),
            'the failure on A’s stderr',
            10_000,
          ).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, downMs));
        },
      });

      // Once the database is back, the interrupted turn ends, for clients of both replicas.
      // (What each side saw, should it not: the ends so far and both replicas' stderr.)
      const seen = () =>
        `; alice's ends ${JSON.stringify(turnEnds(alice))}, bob's ${JSON.stringify(turnEnds(bob))}` +
        `\nA's stderr:\n${a.stderr()}\nB's stderr:\n${b.stderr()}`;
      await until(
        () => turnEnds(alice).length === 2 && turnEnds(bob).length === 1,
        'the turn to end',
        60_000,
        seen,
      );
      expect(turnEnds(alice)[1]).toMatchObject({ stopReason: 'error', error: { code: expect.any(Number) } });
      expect(turnEnds(bob)[0]).toMatchObject({ stopReason: 'error' });
      expect(a.stderr()).toMatch(/onPrompt failed in sess_\S+: .*PostgreSQL failed/);

      // Exactly once: the next turn (prompted on either replica) is the only idle after it.
      await bob.client.prompt(sessionId, text('after the outage'));
      await until(
        () => turnEnds(alice).length === 3 && turnEnds(bob).length === 2,
        'the next turn',
        60_000,
        seen,
      );
      expect(turnEnds(alice).map((u) => u.stopReason)).toEqual(['end_turn', 'error', 'end_turn']);
      expect(turnEnds(bob).map((u) => u.stopReason)).toEqual(['error', 'end_turn']);

      // The history is intact: a client resuming on either replica replays what Alice holds, and
      // is told the session is idle, not running.
      for (const replica of [a, b]) {
        const carol = await clientOverWebSocket(replica.url);
        await carol.client.resume(sessionId, { cwd: '/work', replay: true });
        expect(carol.client.store.snapshot(sessionId).state.state).toBe('idle');
        expect(messages(carol, sessionId)).toEqual(messages(alice, sessionId));
        carol.client.close();
      }
      const notes = messages(alice, sessionId).filter(
        ([, , body]) => body === '/note kept across the outage',
      );
      expect(notes).toHaveLength(1);
      alice.client.close();
      bob.client.close();
    });
  }

  it('exits at start-up with an error naming the database when PostgreSQL cannot be reached', async () => {
    const unreachable = `postgresql://acp@localhost/none?host=${encodeURIComponent(`${server.dir}/nowhere`)}`;
    const child = spawn(process.execPath, [BIN, 'agent', '--history', unreachable], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/postgresql:\/\/acp@localhost\/none/);
    expect(stderr).toMatch(/PostgreSQL failed|cannot/);
  });
});
