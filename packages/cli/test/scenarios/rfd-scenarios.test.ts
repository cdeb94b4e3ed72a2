/**
 * The RFD's test scenarios (v2 prompt lifecycle, "Implementation details and plan", item 4), each
 * exercised over real transports: `acp-kit agent` as a child process over stdio, or listening on
 * WebSocket for several clients; the restart cases restart that process on the same SQLite file.
 */
import { join } from 'node:path';
import {
  type AgentConnection,
  Connection,
  type ConversationStore,
  createInProcessPair,
  schemaValidator,
} from '@acp-kit/sdk';
import { SqliteHistoryStore } from '@acp-kit/history-sqlite';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agentProcess,
  clientOver,
  clientOverWebSocket,
  idleCount,
  isState,
  listeningAgent,
  requireBuild,
  type TestClient,
  tempDir,
  textOf,
} from '../harness.js';

const text = (t: string) => [{ type: 'text' as const, text: t }] as [{ type: 'text'; text: string }];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(requireBuild);

/** Starts the agent over stdio and connects a client (optionally reusing a store). */
async function start(args: string[] = [], store?: ConversationStore) {
  const transport = agentProcess(args);
  cleanups.push(async () => void (await transport.shutdown({ graceMs: 500 })));
  const t = await clientOver(transport, store ? { store } : {});
  return { transport, t };
}

function userMessages(t: TestClient, sessionId: string) {
  return t.client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'user_message');
}

describe('RFD scenarios', () => {
  it('(1) an ID assigned before insertion does not produce an early success response', async () => {
    const { t } = await start(['--chunk-delay', '20']);
    const sessionId = await t.client.newSession('/work');
    // The first prompt starts a long turn; the second arrives while it runs and is held.
    await t.client.prompt(sessionId, text('one two three four five six seven eight nine ten'));
    const second = t.client.submit(sessionId, text('second'));
    let answeredAt = -1;
    void second.messageId.then(() => {
      answeredAt = t.incoming.length;
    });
    const id = await second.messageId;
    const firstIdle = t.incoming.findIndex(
      (m) => m.method === 'session/update' && isState((m.params as { update: never }).update, 'idle'),
    );
    expect(firstIdle).toBeGreaterThanOrEqual(0);
    expect(answeredAt).toBeGreaterThan(firstIdle); // held until the running turn ended
    const reported = t
      .updates()
      .filter((u) => u.sessionUpdate === 'user_message' && 'messageId' in u && u.messageId === id);
    expect(reported).toHaveLength(1);
  });

  it('(2) notifications may arrive before or after the response; the client reconciles either way', async () => {
    // Real agent: the user message is reported before the response, the processing after it.
    const { t } = await start();
    const sessionId = await t.client.newSession('/work');
    const id = await t.client.prompt(sessionId, text('hello'));
    await idleCount(t, 1);
    const responseAt = t.incoming.findIndex(
      (m) => (m.result as { messageId?: string } | undefined)?.messageId === id,
    );
    const userAt = t.incoming.findIndex(
      (m) =>
        m.method === 'session/update' &&
        (m.params as { update: { messageId?: string } }).update.messageId === id,
    );
    const idleAt = t.incoming.findIndex(
      (m) => m.method === 'session/update' && isState((m.params as { update: never }).update, 'idle'),
    );
    expect(userAt).toBeLessThan(responseAt);
    expect(responseAt).toBeLessThan(idleAt);
    expect(userMessages(t, sessionId)).toMatchObject([
      { messageId: id, origin: 'agent', localId: expect.any(String) },
    ]);

    // A peer that answers first and reports the user message afterwards: still one entry.
    const [agentSide, clientSide] = createInProcessPair();
    const peer: AgentConnection = new Connection(agentSide, { validator: schemaValidator });
    peer.onRequest('initialize', () => ({
      protocolVersion: 2,
      info: { name: 'late-reporter', version: '0' },
    }));
    peer.onRequest('session/new', () => ({ sessionId: 'sess_late' }));
    peer.onRequest('session/prompt', (params) => {
      setTimeout(() => {
        void peer.sendNotification('session/update', {
          sessionId: 'sess_late',
          update: { sessionUpdate: 'user_message', messageId: 'mess_late', content: params.prompt },
        });
      }, 20);
      return { messageId: 'mess_late' };
    });
    peer.listen();
    const late = await clientOver(clientSide);
    const lateSession = await late.client.newSession('/work');
    await late.client.prompt(lateSession, text('hello'));
    expect(userMessages(late, lateSession)).toMatchObject([
      { messageId: 'mess_late', origin: 'local-pending' },
    ]);
    await late.until(() => late.updates().length === 1);
    expect(userMessages(late, lateSession)).toMatchObject([{ messageId: 'mess_late', origin: 'agent' }]);
    late.client.close();
  });

  it('(3) identical prompts get distinct IDs and stay distinct messages', async () => {
    const { t } = await start();
    const sessionId = await t.client.newSession('/work');
    const a = await t.client.prompt(sessionId, text('same words'));
    const b = await t.client.prompt(sessionId, text('same words'));
    await idleCount(t, 2);
    expect(a).not.toBe(b);
    const users = userMessages(t, sessionId);
    expect(users.map((m) => m.messageId)).toEqual([a, b]);
    expect(users.every((m) => textOf(m.content) === 'same words' && m.origin === 'agent')).toBe(true);
  });

  it('(4) submissions from multiple clients: every client sees every message by ID, only the submitter gets the response', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const alice = await clientOverWebSocket(agent.url);
    const bob = await clientOverWebSocket(agent.url);
    cleanups.push(
      () => alice.client.close(),
      () => bob.client.close(),
    );
    const sessionId = await alice.client.newSession('/work');
    await bob.client.resume(sessionId, { cwd: '/work' });
    const fromAlice = await alice.client.prompt(sessionId, text('from alice'));
    const fromBob = await bob.client.prompt(sessionId, text('from bob'));
    await Promise.all([idleCount(alice, 2), idleCount(bob, 2)]);
    const receipts = (t: TestClient) =>
      t.incoming.map((m) => (m.result as { messageId?: string } | undefined)?.messageId).filter(Boolean);
    expect(receipts(alice)).toEqual([fromAlice]);
    expect(receipts(bob)).toEqual([fromBob]);
    for (const [t, own, other] of [
      [alice, fromAlice, fromBob],
      [bob, fromBob, fromAlice],
    ] as const) {
      const users = userMessages(t, sessionId);
      expect(users.map((m) => m.messageId)).toEqual([fromAlice, fromBob]);
      expect(users.find((m) => m.messageId === own)?.localId).toEqual(expect.any(String));
      expect(users.find((m) => m.messageId === other)?.localId).toBeNull();
    }
  });

  it('(5) a retained association survives replay after an agent restart', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const db = join(temp.dir, 'history.db');
    const first = await start(['--history', db]);
    const sessionId = await first.t.client.newSession('/work');
    const submission = first.t.client.submit(sessionId, text('remember me'));
    const id = await submission.messageId;
    await idleCount(first.t, 1);
    const store = first.t.client.store;
    await first.transport.shutdown({ graceMs: 500 });

    const second = await start(['--history', db], store);
    await second.t.client.resume(sessionId, { cwd: '/work', replay: true });
    const users = userMessages(second.t, sessionId);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ messageId: id, localId: submission.localId, origin: 'agent' });
    expect(textOf(users[0]!.content)).toBe('remember me');
  });

  it('(6) imported messages without prompt responses are reported and replayed under agent-generated IDs', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const db = join(temp.dir, 'history.db');
    // Import a conversation into the agent's history before it starts, as a migration tool would.
    const store = await SqliteHistoryStore.open(db);
    const session = await store.createSession({ sessionId: 'sess_imported', cwd: '/work' });
    const userId = await store.nextMessageId(session.sessionId);
    await store.appendMessage(session.sessionId, {
      kind: 'user_message',
      messageId: userId,
      content: text('old question'),
      via: 'full',
    });
    const agentId = await store.nextMessageId(session.sessionId);
    await store.appendMessage(session.sessionId, {
      kind: 'agent_message',
      messageId: agentId,
      content: text('old answer'),
      via: 'full',
    });
    await store.close();

    const { t } = await start(['--history', db]);
    await t.client.resume('sess_imported', { cwd: '/work', replay: true });
    const snapshot = t.client.store.snapshot('sess_imported');
    expect(snapshot.messages.map((m) => [m.kind, m.messageId, textOf(m.content), m.localId])).toEqual([
      ['user_message', userId, 'old question', null],
      ['agent_message', agentId, 'old answer', null],
    ]);
    expect(t.incoming.some((m) => (m.result as { messageId?: string } | undefined)?.messageId)).toBe(false);
  });

  it('(7) full-content and streamed updates build the same messages', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const t = await clientOverWebSocket(agent.url);
    cleanups.push(() => t.client.close());
    const sessionId = await t.client.newSession('/work');
    await t.client.prompt(sessionId, text('stream this please'));
    await idleCount(t, 1);
    const live = t.client.store.snapshot(sessionId).messages.map((m) => [m.messageId, textOf(m.content)]);
    // The user message arrived whole; the reply arrived as chunks.
    expect(t.updates().filter((u) => u.sessionUpdate === 'user_message')).toHaveLength(1);
    expect(t.updates().filter((u) => u.sessionUpdate === 'agent_message_chunk').length).toBeGreaterThan(1);
    // Replayed as reset + chunks (the reference agent's replay style), the same content results.
    const other = await clientOverWebSocket(agent.url);
    cleanups.push(() => other.client.close());
    await other.client.resume(sessionId, { cwd: '/work', replay: true });
    expect(other.updates().filter((u) => u.sessionUpdate === 'user_message_chunk')).toHaveLength(1);
    expect(
      other.client.store.snapshot(sessionId).messages.map((m) => [m.messageId, textOf(m.content)]),
    ).toEqual(live);
  });

  it('(8) a locally handled command is reported live but omitted from later replay', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const db = join(temp.dir, 'history.db');
    const first = await start(['--history', db]);
    const sessionId = await first.t.client.newSession('/work');
    const statusId = await first.t.client.prompt(sessionId, text('/status'));
    await idleCount(first.t, 1);
    expect(
      first.t
        .updates()
        .some((u) => u.sessionUpdate === 'user_message' && 'messageId' in u && u.messageId === statusId),
    ).toBe(true);
    expect(first.t.updates().some((u) => u.sessionUpdate === 'agent_message_chunk')).toBe(true);
    await first.transport.shutdown({ graceMs: 500 });

    const second = await start(['--history', db]);
    await second.t.client.resume(sessionId, { cwd: '/work', replay: true });
    // Nothing but the current-state snapshot a resume carries: no message was replayed.
    expect(second.t.updates()).toEqual([{ sessionUpdate: 'state_update', state: 'idle' }]);
  });

  it('(9) a retained command is replayed with the same ID without being executed again', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const db = join(temp.dir, 'history.db');
    const first = await start(['--history', db]);
    const sessionId = await first.t.client.newSession('/work');
    const noteId = await first.t.client.prompt(sessionId, text('/note water the plants'));
    await idleCount(first.t, 1);
    const retained = first.t.client.store
      .snapshot(sessionId)
      .messages.map((m) => [m.messageId, textOf(m.content)]);
    await first.transport.shutdown({ graceMs: 500 });

    const second = await start(['--history', db]);
    await second.t.client.resume(sessionId, { cwd: '/work', replay: true });
    expect(
      second.t.client.store.snapshot(sessionId).messages.map((m) => [m.messageId, textOf(m.content)]),
    ).toEqual(retained);
    expect(retained[0]).toEqual([noteId, '/note water the plants']);
    // Replay produced no new work: no running state (only the idle snapshot of the resume)…
    expect(second.t.updates().filter((u) => u.sessionUpdate === 'state_update')).toEqual([
      { sessionUpdate: 'state_update', state: 'idle' },
    ]);
    // …and the command's effect was not applied again in the restarted agent.
    await second.t.client.prompt(sessionId, text('/status'));
    await idleCount(second.t, 1);
    const status = second.t.client.store.snapshot(sessionId).messages.at(-1);
    expect(textOf(status!.content)).toMatch(/: 0 note\(s\)/);
  });

  it('(10) a lost response stays an ambiguous outcome and is not recovered by guessing', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const db = join(temp.dir, 'history.db');
    // Client ⇄ proxy ⇄ agent process; the proxy drops the prompt's response, then the agent dies.
    const agent = agentProcess(['--history', db]);
    cleanups.push(async () => void (await agent.shutdown({ graceMs: 500 })));
    const [inner, outer] = createInProcessPair();
    let dropId: unknown;
    agent.reader.listen({
      onMessage: (line) => {
        const message = JSON.parse(line) as { id?: unknown; result?: { messageId?: string } };
        if (message.result?.messageId && message.id === dropId) return;
        void inner.writer.write(line);
      },
      onFrameError: () => undefined,
      onClose: () => void inner.writer.close(),
    });
    inner.reader.listen({
      onMessage: (line) => {
        const message = JSON.parse(line) as { id?: unknown; method?: string };
        if (message.method === 'session/prompt') dropId = message.id;
        void agent.writer.write(line);
      },
      onFrameError: () => undefined,
      onClose: () => undefined,
    });
    const t = await clientOver(outer);
    const sessionId = await t.client.newSession('/work');
    const submission = t.client.submit(sessionId, text('did this arrive?'));
    await t.until(() => t.updates().some((u) => u.sessionUpdate === 'user_message'));
    const insertedId = (t.updates().find((u) => u.sessionUpdate === 'user_message') as { messageId: string })
      .messageId;
    await agent.shutdown({ graceMs: 500 });
    await expect(submission.messageId).rejects.toMatchObject({ code: -32099 });
    const store = t.client.store;
    expect(store.snapshot(sessionId).state.connection).toBe('disconnected');
    const unknown = store.snapshot(sessionId).messages.find((m) => m.localId === submission.localId);
    expect(unknown).toMatchObject({ origin: 'local-unknown', messageId: null });

    // Reconnect and replay: the inserted message is shown by its ID; the submission is still unknown.
    const again = await start(['--history', db], store);
    await again.t.client.resume(sessionId, { cwd: '/work', replay: true });
    const messages = store.snapshot(sessionId).messages;
    expect(messages.find((m) => m.messageId === insertedId)).toMatchObject({
      origin: 'agent',
      localId: null,
    });
    expect(messages.find((m) => m.localId === submission.localId)).toMatchObject({
      origin: 'local-unknown',
      messageId: null,
    });
  });

  it('(11) streamed replay does not duplicate content the client already holds', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const t = await clientOverWebSocket(agent.url);
    cleanups.push(() => t.client.close());
    const sessionId = await t.client.newSession('/work');
    await t.client.prompt(sessionId, text('count my words'));
    await idleCount(t, 1);
    const before = t.client.store.snapshot(sessionId).messages.map((m) => [m.messageId, textOf(m.content)]);
    // The same client (same store) resumes twice on fresh connections to the same agent process.
    for (let i = 0; i < 2; i += 1) {
      const again = await clientOverWebSocket(agent.url, { store: t.client.store });
      await again.client.resume(sessionId, { cwd: '/work', replay: true });
      expect(again.updates().filter((u) => u.sessionUpdate.endsWith('_chunk')).length).toBeGreaterThan(0);
      again.client.close();
    }
    expect(t.client.store.snapshot(sessionId).messages.map((m) => [m.messageId, textOf(m.content)])).toEqual(
      before,
    );
  });
});
