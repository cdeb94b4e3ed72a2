/**
 * A client's system prompt (unstable: `systemPrompt` on `session/new`, `session/resume` and
 * `session/fork`) is kept with the session in its history, with SQLite and with PostgreSQL alike:
 * the real `acp-kit agent --unstable` process reports the prompt that applies in `/status`. A fork
 * given none keeps its source's, a fork given one has its own; after a restart of the process on
 * the same history, a resume without one finds each session's stored prompt. With PostgreSQL, a
 * second replica running at the same time finds the prompt of a session created on the first,
 * forks it with the prompt, and a replacement given on one replica applies on the other.
 */
import { join } from 'node:path';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import type { SystemPrompt } from '@acp-kit/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentProcess,
  clientOver,
  clientOverWebSocket,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  type TestClient,
  tempDir,
  scenarioPostgres,
} from '../harness.js';

const temp = tempDir();
let server: ThrowawayPostgres;
const listening: ListeningAgent[] = [];
beforeAll(async () => {
  requireBuild();
  server = await scenarioPostgres();
}, 180_000);
afterAll(async () => {
  for (const agent of listening.splice(0)) await agent.stop();
  await server?.stop();
  temp.cleanup();
});

const STORES: [string, () => Promise<string>][] = [
  ['SQLite', async () => join(temp.dir, 'system-prompt.db')],
  ['PostgreSQL', async () => server.createDatabase('system_prompt')],
];

const REVIEW: SystemPrompt = { mode: 'override', content: [{ type: 'text', text: 'Review only.' }] };
const BRIEF: SystemPrompt = { mode: 'append', content: [{ type: 'text', text: 'Be brief.' }] };
const TERSE: SystemPrompt = { mode: 'append', content: [{ type: 'text', text: 'Answer in one line.' }] };

async function started(history: string) {
  const transport = agentProcess(['--unstable', '--chunk-delay', '0', '--history', history]);
  const t = await clientOver(transport, { unstable: true });
  return { t, stop: () => transport.shutdown() };
}

/**
 * Asks the agent for `/status` in a session and returns the system prompt part of its reply
 * (`system prompt: override, 12 character(s)` or `no system prompt`).
 */
async function promptIn(t: TestClient, sessionId: string): Promise<string> {
  const from = t.incoming.length;
  await t.client.promptToEnd(sessionId, [{ type: 'text', text: '/status' }]);
  const reply = t.incoming
    .slice(from)
    .filter((m) => m.method === 'session/update')
    .map((m) => m.params as { sessionId: string; update: { sessionUpdate: string; content?: unknown } })
    .filter((p) => p.sessionId === sessionId && p.update.sessionUpdate === 'agent_message_chunk')
    .map((p) => (p.update.content as { text?: string }).text ?? '')
    .join('');
  const part = /(no system prompt|system prompt: [^,]+, \d+ character\(s\))/.exec(reply);
  if (part === null) throw new Error(`no system prompt part in the /status reply ${JSON.stringify(reply)}`);
  return part[1]!;
}

describe.each(STORES)('acp-kit agent --unstable with %s history', (_name, history) => {
  it('keeps a session’s system prompt, a fork’s inherited or own prompt, and a replacement across a restart', async () => {
    const url = await history();
    const first = await started(url);
    const c1 = first.t.client;
    const { sessionId: source } = await c1.createSession({
      cwd: '/repo',
      mcpServers: [],
      systemPrompt: REVIEW,
    });
    const plain = await c1.newSession('/repo');
    expect(await promptIn(first.t, source)).toBe('system prompt: override, 12 character(s)');
    expect(await promptIn(first.t, plain)).toBe('no system prompt');
    // A fork given no prompt takes its source's; one given a prompt has that one.
    const inherited = await c1.forkSession({ sessionId: source, cwd: '/repo/a' });
    const own = await c1.forkSession({ sessionId: source, cwd: '/repo/b', systemPrompt: BRIEF });
    expect(await promptIn(first.t, inherited.sessionId)).toBe('system prompt: override, 12 character(s)');
    expect(await promptIn(first.t, own.sessionId)).toBe('system prompt: append, 9 character(s)');
    await first.stop();

    const second = await started(url);
    const c2 = second.t.client;
    // Resumed without a prompt after the restart: each session's stored prompt applies.
    await c2.resume(source, { cwd: '/repo' });
    await c2.resume(plain, { cwd: '/repo' });
    await c2.resume(inherited.sessionId, { cwd: '/repo/a' });
    await c2.resume(own.sessionId, { cwd: '/repo/b' });
    expect(await promptIn(second.t, source)).toBe('system prompt: override, 12 character(s)');
    expect(await promptIn(second.t, plain)).toBe('no system prompt');
    expect(await promptIn(second.t, inherited.sessionId)).toBe('system prompt: override, 12 character(s)');
    expect(await promptIn(second.t, own.sessionId)).toBe('system prompt: append, 9 character(s)');
    // A resume with a prompt replaces the stored one, for this process and the next.
    await c2.resume(source, { cwd: '/repo', systemPrompt: TERSE });
    expect(await promptIn(second.t, source)).toBe('system prompt: append, 19 character(s)');
    // A fork made now takes the replacement.
    const later = await c2.forkSession({ sessionId: source, cwd: '/repo/c' });
    await second.stop();

    const third = await started(url);
    await third.t.client.resume(source, { cwd: '/repo' });
    await third.t.client.resume(later.sessionId, { cwd: '/repo/c' });
    expect(await promptIn(third.t, source)).toBe('system prompt: append, 19 character(s)');
    expect(await promptIn(third.t, later.sessionId)).toBe('system prompt: append, 19 character(s)');
    await third.stop();
  });
});

describe('acp-kit agent --unstable: two replicas on one PostgreSQL history', () => {
  it('find the system prompt of a session created on the other, fork it with the prompt, and see a replacement given on the other', async () => {
    const url = await server.createDatabase('system_prompt_replicas');
    const args = ['--unstable', '--chunk-delay', '0', '--history', url];
    const a = await listeningAgent(args);
    listening.push(a);
    const b = await listeningAgent(args);
    listening.push(b);
    const alice = await clientOverWebSocket(a.url, { unstable: true });
    const bob = await clientOverWebSocket(b.url, { unstable: true });
    try {
      const { sessionId } = await alice.client.createSession({
        cwd: '/work',
        mcpServers: [],
        systemPrompt: REVIEW,
      });
      // Bob, on replica B, resumes without a prompt: the one given on replica A applies to his turn.
      await bob.client.resume(sessionId, { cwd: '/work' });
      expect(await promptIn(bob, sessionId)).toBe('system prompt: override, 12 character(s)');
      // A fork made on replica B, given no prompt, takes the source's.
      const fork = await bob.client.forkSession({ sessionId, cwd: '/work/fork' });
      expect(await promptIn(bob, fork.sessionId)).toBe('system prompt: override, 12 character(s)');
      await alice.client.resume(fork.sessionId, { cwd: '/work/fork' });
      expect(await promptIn(alice, fork.sessionId)).toBe('system prompt: override, 12 character(s)');
      // A replacement given on replica B applies to Alice's next turn on replica A.
      await bob.client.resume(sessionId, { cwd: '/work', systemPrompt: BRIEF });
      expect(await promptIn(alice, sessionId)).toBe('system prompt: append, 9 character(s)');
      // The fork keeps the prompt it was made with.
      expect(await promptIn(alice, fork.sessionId)).toBe('system prompt: override, 12 character(s)');
    } finally {
      alice.client.close();
      bob.client.close();
    }
  });
});
