/**
 * The unstable surface is persisted like the rest (#29 item 5): with SQLite and with PostgreSQL
 * history, the real `acp-kit agent --unstable` process keeps a title set with `session/set_title`,
 * the archive mark, a fork's copied history (under the source's message IDs) and a subagent under
 * its parent across a restart of the process.
 */
import { join } from 'node:path';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentProcess,
  clientOver,
  requireBuild,
  type TestClient,
  tempDir,
  scenarioPostgres,
} from '../harness.js';

const temp = tempDir();
let server: ThrowawayPostgres;
beforeAll(async () => {
  requireBuild();
  server = await scenarioPostgres();
}, 180_000);
afterAll(async () => {
  await server?.stop();
  temp.cleanup();
});

const STORES: [string, () => Promise<string>][] = [
  ['SQLite', async () => join(temp.dir, 'unstable.db')],
  ['PostgreSQL', async () => server.createDatabase('unstable')],
];

async function started(history: string) {
  const transport = agentProcess(['--unstable', '--chunk-delay', '0', '--history', history]);
  const t = await clientOver(transport, { unstable: true });
  return { t, stop: () => transport.shutdown() };
}

/** The session's messages in the store: kind, ID and text. */
const messagesOf = (t: TestClient, sessionId: string) =>
  t.client.store
    .snapshot(sessionId)
    .messages.map((m) => [m.kind, m.messageId, m.content.map((b) => ('text' in b ? b.text : '')).join('')]);

describe.each(STORES)('acp-kit agent --unstable with %s history', (_name, history) => {
  it('keeps titles, the archive mark, a fork with its copied history and a subagent across a restart', async () => {
    const url = await history();
    const first = await started(url);
    const source = await first.t.client.newSession('/repo');
    const c1 = first.t.client;
    await c1.promptToEnd(source, [{ type: 'text', text: 'hello there' }]);
    expect(await c1.setTitle(source, '  Main line  ')).toBe('Main line');
    const fork = await c1.forkSession({ sessionId: source, cwd: '/repo/branch' }, { replay: true });
    // The fork starts with the source's messages, under their IDs.
    expect(messagesOf(first.t, fork.sessionId)).toEqual(messagesOf(first.t, source));
    await c1.promptToEnd(fork.sessionId, [{ type: 'text', text: 'second direction' }]);
    // The parent's turn ends after its subagent's.
    await c1.promptToEnd(source, [{ type: 'text', text: '/subagent count the files' }]);
    const [child] = c1.store.snapshot(source).subagents;
    expect(child).toBeDefined();
    const sourceMessages = messagesOf(first.t, source);
    const childMessages = messagesOf(first.t, child!.sessionId);
    expect(childMessages.length).toBeGreaterThan(0);
    const forkMessages = messagesOf(first.t, fork.sessionId);
    expect(forkMessages.map((m) => m[2])).toContain('second direction');
    await first.t.client.archiveSession(source);
    await first.stop();

    const second = await started(url);
    const c = second.t.client;
    // The archive mark and the title survived: hidden by default, listed with archived: only.
    const listed = (await c.listSessions()).sessions.map((s) => s.sessionId);
    expect(listed).toContain(fork.sessionId);
    expect(listed).not.toContain(source);
    const archived = (await c.listSessions({ archived: 'only' })).sessions;
    expect(archived.map((s) => [s.sessionId, s.title, s.archived])).toEqual([[source, 'Main line', true]]);
    // The fork's history: the source's first turn under the same message IDs, then its own, once each.
    await c.resume(fork.sessionId, { cwd: '/repo/branch', replay: true });
    const replayedFork = messagesOf(second.t, fork.sessionId);
    expect(replayedFork).toEqual(forkMessages);
    expect(replayedFork.slice(0, 2)).toEqual(sourceMessages.slice(0, 2));
    // Unarchived, the source resumes with its subagent: announced under it, its history replayed.
    await c.unarchiveSession(source);
    expect((await c.listSessions()).sessions.map((s) => s.sessionId)).toContain(source);
    await c.resume(source, { cwd: '/repo', replay: true });
    await second.t.until(() => messagesOf(second.t, child!.sessionId).length === childMessages.length);
    expect(c.store.snapshot(source).subagents.map((s) => s.sessionId)).toEqual([child!.sessionId]);
    expect(messagesOf(second.t, child!.sessionId)).toEqual(childMessages);
    expect(messagesOf(second.t, source)).toEqual(sourceMessages);
    await second.stop();
  });
});
