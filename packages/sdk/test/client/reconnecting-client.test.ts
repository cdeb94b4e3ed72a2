/**
 * `connectClient` keeps a `Client` connected to a `listenAcp` endpoint: the server cuts the
 * connection mid-turn, the client reconnects, resumes its session with replay, and its store holds
 * every message once, with the turn's text whole. Permanent refusals end it with a clear error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import {
  type ConversationStore,
  connectClient,
  type DisconnectedEvent,
  type ReconnectedEvent,
  ReconnectFailedError,
} from '../../src/client/index.js';
import { Connection, type Transport } from '../../src/rpc/index.js';
import {
  type AcpTransportServer,
  connectHttp,
  connectWebSocket,
  listenAcp,
  MemoryCookieStore,
} from '../../src/transports/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A gate the test opens: the agent's turn waits on it halfway through its reply. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

interface Served {
  server: AcpTransportServer;
  /** The agent side of every connection, in the order they came. */
  connections: Transport[];
  halfway: ReturnType<typeof gate>;
}

/** An agent whose reply is "first half " then, once the test opens the gate, "second half". */
async function serve(): Promise<Served> {
  const halfway = gate();
  const agent = new Agent({
    info: { name: 'acp-kit-test-agent', version: '0.0.0' },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: 'first half ' });
      await halfway.wait;
      await reply.chunk({ type: 'text', text: 'second half' });
      await session.idle('end_turn');
    },
  });
  const connections: Transport[] = [];
  const server = await listenAcp({
    onConnection: (transport) => {
      connections.push(transport);
      agent.serve(new Connection(transport) as AgentConnection);
    },
    http: { sessionExists: async (id) => (await agent.log.getSession(id)) !== undefined },
  });
  cleanups.push(() => server.close());
  return { server, connections, halfway };
}

/** Resolves once `predicate` holds for the store (checked now and after every change). */
function until(store: ConversationStore, predicate: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    const unsubscribe = store.subscribe(() => {
      if (!predicate()) return;
      unsubscribe();
      resolve();
    });
  });
}

const texts = (store: ConversationStore, sessionId: string): string[] =>
  store
    .snapshot(sessionId)
    .messages.map((m) => `${m.kind}:${m.content.map((c) => ('text' in c ? c.text : '')).join('')}`);

type Profile = 'http' | 'websocket';

describe.each<Profile>(['http', 'websocket'])('connectClient over %s', (profile) => {
  it('reconnects after the server cuts the connection mid-turn, resumes with replay, and holds every message once', async () => {
    const { server, connections, halfway } = await serve();
    const cookies = new MemoryCookieStore();
    const connect = (): Promise<Transport> =>
      profile === 'http'
        ? connectHttp(server.url, { token: server.token!, cookies })
        : connectWebSocket(server.webSocketUrl, { token: server.token! });
    const disconnected: DisconnectedEvent[] = [];
    let resolveReconnected!: (event: ReconnectedEvent) => void;
    const reconnected = new Promise<ReconnectedEvent>((resolve) => {
      resolveReconnected = resolve;
    });
    const remote = await connectClient(connect, {
      info: { name: 'reconnecting-test', version: '0.0.0' },
      reconnect: {
        initialDelayMs: 10,
        onDisconnected: (event) => disconnected.push(event),
        onReconnected: (event) => resolveReconnected(event),
      },
    });
    cleanups.push(() => remote.close());
    const { store } = remote;

    const sessionId = await remote.client.newSession('/repo');
    const submission = remote.client.submit(sessionId, [{ type: 'text', text: 'go' }]);
    const messageId = await submission.messageId;
    await until(store, () => texts(store, sessionId).includes('agent_message:first half '));

    // The server ends this connection mid-turn (as a dying replica or a proxy would).
    expect(connections).toHaveLength(1);
    await connections[0]!.writer.close();

    const event = await reconnected;
    expect(disconnected).toHaveLength(1);
    expect(disconnected[0]!.cause.message).toMatch(/connection closed/);
    expect(disconnected[0]!.sessions).toEqual([sessionId]);
    expect(event).toMatchObject({ attempts: 1, resumed: [sessionId], lost: [] });
    expect(remote.client).toBe(event.client);
    expect(connections).toHaveLength(2);
    // The turn could not be watched across the drop: its end is reported unobservable, not guessed.
    await expect(submission.turnEnd).rejects.toMatchObject({ code: 'disconnected' });
    expect(store.snapshot(sessionId).state.connection).toBe('connected');

    // The replay folded into what the store held: the same two messages, once each.
    expect(texts(store, sessionId)).toEqual(['user_message:go', 'agent_message:first half ']);

    // The turn goes on live over the new connection.
    halfway.open();
    await until(store, () => store.snapshot(sessionId).state.completedTurns >= 1);
    const snapshot = store.snapshot(sessionId);
    expect(texts(store, sessionId)).toEqual(['user_message:go', 'agent_message:first half second half']);
    expect(snapshot.messages[0]).toMatchObject({ messageId, origin: 'agent', localId: submission.localId });
    expect(new Set(snapshot.messages.map((m) => m.messageId)).size).toBe(snapshot.messages.length);

    // And the session is usable as before.
    const next = await remote.client.promptToEnd(sessionId, [{ type: 'text', text: 'again' }]);
    expect(next.stopReason).toBe('end_turn');
    expect(texts(store, sessionId)).toHaveLength(4);
  });
});

describe('connectClient gives up', () => {
  it('at once on a permanent refusal, with an error naming the status', async () => {
    const { server, connections } = await serve();
    let calls = 0;
    const remote = await connectClient(
      () => connectHttp(server.url, { token: calls++ === 0 ? server.token! : 'wrong-token-0123456789' }),
      { info: { name: 'reconnecting-test', version: '0.0.0' }, reconnect: { initialDelayMs: 10 } },
    );
    cleanups.push(() => remote.close());
    await remote.client.newSession('/repo');
    await connections[0]!.writer.close();

    const failure = await remote.closed.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReconnectFailedError);
    expect(failure).toMatchObject({ status: 401, permanent: true, attempts: 1 });
    expect(String(failure)).toContain('HTTP 401');
    await expect(remote.ready()).rejects.toBe(failure);
    expect(calls).toBe(2);
  });

  it('after the bounded attempts when the server is gone', async () => {
    const { server, connections } = await serve();
    const remote = await connectClient(() => connectHttp(server.url, { token: server.token! }), {
      info: { name: 'reconnecting-test', version: '0.0.0' },
      reconnect: { attempts: 3, initialDelayMs: 5, maxDelayMs: 20 },
    });
    cleanups.push(() => remote.close());
    await remote.client.newSession('/repo');
    const connection = connections[0]!;
    await server.close();
    await connection.writer.close();

    const failure = await remote.closed.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReconnectFailedError);
    expect(failure).toMatchObject({ permanent: false, attempts: 3 });
    expect(String(failure)).toMatch(/reconnecting failed after 3 attempts/);
  });

  it('never, after close()', async () => {
    const { server, connections } = await serve();
    const remote = await connectClient(() => connectHttp(server.url, { token: server.token! }), {
      info: { name: 'reconnecting-test', version: '0.0.0' },
    });
    await remote.client.newSession('/repo');
    remote.close();
    await expect(remote.closed).resolves.toBeUndefined();
    await connections[0]!.writer.close();
    expect(connections).toHaveLength(1);
    await expect(remote.ready()).resolves.toBe(remote.client);
  });

  it('stops waiting between attempts on close(), and ready() then rejects', async () => {
    const { server, connections } = await serve();
    let calls = 0;
    let failedOnce!: () => void;
    const secondCall = new Promise<void>((resolve) => {
      failedOnce = resolve;
    });
    const remote = await connectClient(
      async () => {
        if (calls++ === 0) return connectHttp(server.url, { token: server.token! });
        failedOnce();
        throw new Error('unreachable');
      },
      {
        info: { name: 'reconnecting-test', version: '0.0.0' },
        reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      },
    );
    await remote.client.newSession('/repo');
    await connections[0]!.writer.close();
    await secondCall;
    const ready = remote.ready();
    remote.close();
    await expect(ready).rejects.toMatchObject({ code: -32099 });
    await expect(remote.closed).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
