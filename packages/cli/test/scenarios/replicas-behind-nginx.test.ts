/**
 * Three `acp-kit agent --history postgres://… --listen` replicas behind Debian's nginx, configured
 * as the Remote agents guide shows (affinity by the `acp_affinity` cookie), driven through nginx by
 * the official SDK's Streamable HTTP client and by ours: two clients on one session through
 * different replicas see the same turn; the replica holding our connection is SIGKILLed mid-turn,
 * our client's stream fails with a clear error, it reconnects through nginx, resumes with replay,
 * and its store holds every retained message exactly once.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import {
  Client,
  type ClientConnection,
  Connection,
  type ConversationStore,
  connectClient,
  connectHttp,
  connectWebSocket,
  type DisconnectedEvent,
  generateToken,
  MemoryCookieStore,
  type ReconnectedEvent,
  type ReconnectingClient,
} from '@acp-kit/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import {
  client as officialClient,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  tempDir,
  scenarioPostgres,
} from '../harness.js';
import { type Nginx, startNginx } from '../load-balancer.js';

const LEASE_MS = 2000;

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

/** The store's messages as (kind, messageId, text). */
const messages = (store: ConversationStore, sessionId: string) =>
  store
    .snapshot(sessionId)
    .messages.map((m) => [m.kind, m.messageId, m.content.map((c) => ('text' in c ? c.text : '')).join('')]);

const endsTurn = (u: UpdateSessionNotification): boolean =>
  u.update.sessionUpdate === 'state_update' &&
  (u.update as { state?: string }).state === 'idle' &&
  typeof (u.update as { stopReason?: unknown }).stopReason === 'string';

describe('three replicas behind nginx', () => {
  let postgres: ThrowawayPostgres | undefined;
  let nginx: Nginx | undefined;
  const replicas: ListeningAgent[] = [];
  const closers: (() => void)[] = [];
  const dir = tempDir();

  beforeAll(async () => {
    requireBuild();
    postgres = await scenarioPostgres();
  }, 180_000);

  afterAll(async () => {
    for (const close of closers) close();
    await nginx?.stop();
    for (const replica of replicas) await replica.stop();
    await postgres?.stop();
    dir.cleanup();
  });

  it('routes by the affinity cookie: two clients on different replicas see one turn, and ours survives the SIGKILL of its replica', async () => {
    const url = await postgres!.createDatabase('behind_nginx');
    // One token for every replica: the load balancer sends each request to any of them.
    const tokenFile = join(dir.dir, 'token');
    writeFileSync(tokenFile, `${generateToken()}\n`, { mode: 0o600 });
    chmodSync(tokenFile, 0o600);
    for (const name of ['r1', 'r2', 'r3']) {
      replicas.push(
        await listeningAgent([
          '--history',
          url,
          '--lease-ms',
          String(LEASE_MS),
          '--chunk-delay',
          '40',
          '--affinity',
          name,
          '--token-file',
          tokenFile,
        ]),
      );
    }
    const ports = replicas.map((replica) => Number(new URL(replica.url).port));
    nginx = await startNginx(dir.dir, ports);
    const token = replicas[0]!.token!;

    // Ours, through nginx, reconnecting on a drop.
    const cookies = new MemoryCookieStore();
    const disconnected: DisconnectedEvent[] = [];
    let reconnectedWith!: (event: ReconnectedEvent) => void;
    const reconnected = new Promise<ReconnectedEvent>((resolve) => {
      reconnectedWith = resolve;
    });
    const ours: ReconnectingClient = await connectClient(() => connectHttp(nginx!.url, { token, cookies }), {
      info: { name: 'behind-nginx', version: '0.0.0' },
      reconnect: {
        initialDelayMs: 50,
        onDisconnected: (event) => disconnected.push(event),
        onReconnected: (event) => reconnectedWith(event),
      },
    });
    closers.push(() => ours.close());
    const ourReplica = /acp_affinity=(r\d)/.exec(cookies.header() ?? '')?.[1];
    expect(ourReplica).toMatch(/^r[123]$/);
    const sessionId = await ours.client.newSession('/work');

    // The official client, through nginx, lands on another replica (round robin for a new
    // connection; the fetch below sees which one from the cookie it is given).
    const officialCookies: string[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      officialCookies.push(...response.headers.getSetCookie());
      return response;
    };
    const stream = createHttpStream(nginx.url, {
      headers: { Authorization: `Bearer ${token}` },
      fetch: recordingFetch,
    });
    const officialUpdates: UpdateSessionNotification[] = [];
    const officialWaiters = new Set<() => void>();
    const officialSawTurns = (count: number): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (officialUpdates.filter(endsTurn).length < count) return;
          officialWaiters.delete(check);
          resolve();
        };
        officialWaiters.add(check);
        check();
      });
    let releaseOfficial!: () => void;
    const officialDone = new Promise<void>((resolve) => {
      releaseOfficial = resolve;
    });
    closers.push(() => releaseOfficial());
    let officialResumed!: () => void;
    const resumed = new Promise<void>((resolve) => {
      officialResumed = resolve;
    });
    const official = officialClient({ name: 'official-behind-nginx' })
      .onNotification('session/update', ({ params }) => {
        officialUpdates.push(params);
        for (const waiter of [...officialWaiters]) waiter();
      })
      .connectWith(stream, async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 2, info: { name: 'official', version: '2.4.0' } });
        await ctx.request('session/resume', { sessionId, cwd: '/work' });
        officialResumed();
        await officialDone;
      });
    await Promise.race([resumed, official]);
    const officialReplica = /acp_affinity=(r\d)/.exec(officialCookies.join(' '))?.[1];
    expect(officialReplica).toMatch(/^r[123]$/);
    expect(officialReplica).not.toBe(ourReplica);

    // One turn, prompted by ours, seen by both through their replicas.
    const first = await ours.client.promptToEnd(sessionId, [{ type: 'text', text: 'hello through nginx' }]);
    expect(first.stopReason).toBe('end_turn');
    await officialSawTurns(1);
    const officialText = officialUpdates
      .filter((u) => u.update.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u.update as { content: { text: string } }).content.text)
      .join('');
    const ourAgentText = messages(ours.store, sessionId)
      .filter(([kind]) => kind === 'agent_message')
      .map(([, , text]) => text)
      .join('');
    expect(officialText).toBe(ourAgentText);
    expect(
      officialUpdates.filter((u) => u.update.sessionUpdate === 'user_message').map((u) => u.update),
    ).toEqual([expect.objectContaining({ messageId: first.messageId })]);

    // A long turn; the replica holding our connection (and owning the session) dies mid-turn.
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const second = ours.client.submit(sessionId, [{ type: 'text', text: long }]);
    const secondId = await second.messageId;
    // The reply quotes the prompt ("You said 80 words: "word0 word1 …"), a word per chunk.
    await until(ours.store, () =>
      messages(ours.store, sessionId).some(
        ([kind, , text]) => kind === 'agent_message' && /word5 /.test(text!),
      ),
    );
    const victim = replicas[Number(ourReplica!.slice(1)) - 1]!;
    await victim.kill();

    // The stream failed with a clear error; ours reconnected through nginx to a survivor.
    const event = await reconnected;
    expect(disconnected).toHaveLength(1);
    expect(disconnected[0]!.cause.message).toMatch(/ACP over HTTP: .*stream/);
    console.log(`behind nginx: the SIGKILL was reported as "${disconnected[0]!.cause.message}"`);
    expect(event.resumed).toEqual([sessionId]);
    expect(event.lost).toEqual([]);
    const newReplica = /acp_affinity=(r\d)/.exec(cookies.header() ?? '')?.[1];
    expect(newReplica).toMatch(/^r[123]$/);
    expect(newReplica).not.toBe(ourReplica);

    // The survivor takes the session over once the lease lapses and ends the turn: ours sees it live.
    await until(ours.store, () => ours.store.snapshot(sessionId).state.completedTurns >= 2);
    expect(ours.store.snapshot(sessionId).state.stopReason).toBe('error');

    // Every retained message exactly once: the store equals a fresh client's replay.
    const ids = messages(ours.store, sessionId).map(([kind, id]) => `${kind}:${id}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      messages(ours.store, sessionId)
        .filter(([kind]) => kind === 'user_message')
        .map(([, id]) => id),
    ).toEqual([first.messageId, secondId]);
    const fresh = new Client(
      new Connection(await connectHttp(nginx.url, { token })) as unknown as ClientConnection,
      { info: { name: 'fresh', version: '0.0.0' } },
    );
    closers.push(() => fresh.close());
    await fresh.initialize();
    await fresh.resume(sessionId, { cwd: '/work', replay: true });
    expect(messages(ours.store, sessionId)).toEqual(messages(fresh.store, sessionId));

    // And the session is served again, through nginx, over WebSocket too.
    const socket = new Client(
      new Connection(
        await connectWebSocket(nginx.url.replace(/^http/, 'ws'), { token }),
      ) as unknown as ClientConnection,
      { info: { name: 'websocket', version: '0.0.0' } },
    );
    closers.push(() => socket.close());
    await socket.initialize();
    await socket.resume(sessionId, { cwd: '/work' });
    const third = await ours.client.promptToEnd(sessionId, [{ type: 'text', text: 'after the failover' }]);
    expect(third.stopReason).toBe('end_turn');
    await until(socket.store, () =>
      socket.store.snapshot(sessionId).messages.some((m) => m.messageId === third.messageId),
    );

    // The official client, on its own replica, sees the third turn end too (it arrives there
    // through PostgreSQL, after our client saw it: wait for it rather than race it).
    await officialSawTurns(3);
    releaseOfficial();
    await official;
    expect(officialUpdates.filter(endsTurn).length).toBeGreaterThanOrEqual(3);
  });
});

describe('acp-kit agent --affinity', () => {
  it('is refused when it is not a plain cookie value, and without --listen', () => {
    requireBuild();
    const run = (args: string[]) =>
      spawnSync(process.execPath, [BIN, 'agent', ...args], { encoding: 'utf8' });
    const bad = run(['--listen', '127.0.0.1:0', '--affinity', 'r1; Domain=evil']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--affinity expects 1 to 64 letters, digits');
    const alone = run(['--affinity', 'r1']);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('--affinity only applies with --listen');
  });
});
