/**
 * A load-generator process of the capacity benchmark (bench/capacity.ts), started by
 * bench/capacity-run.ts with an IPC channel and driven by the messages of
 * bench/capacity-protocol.ts. It runs in its own process so its CPU is not in the agent's figure.
 *
 * `open`: opens its sessions, 32 at a time, each over a connection of its own (one client per
 * session, as users connect) — or all over one connection for `serve`, which starts an agent
 * process per connection — and attaches a second client, on a connection of its own, to the
 * first `seconds` of them (`session/resume`, no replay). `run`: each session's first client
 * prompts `pace <chunks> <toolAt>` (2–4 s of chunks at 30/s, a tool call in 3 turns of 10), waits
 * for the turn to end, waits 0–1 s and prompts again, from a seeded random draw per session.
 * `mark`: reports what it counted since the last mark (chunks, latency and receipt histograms,
 * its CPU time). `drain`: stops prompting, waits for every turn to end and every second client
 * to have taken in what its first one did (bounded), and reports the whole run's counts. A session
 * whose connection fails while streaming stops there and is reported lost (with the error), left
 * out of the counts; the others go on. `close`:
 * closes every connection and exits. A client that fails reports `failed` and exits 1.
 *
 * Ours counts a chunk once our `ConversationStore` has applied it; the official client, which has
 * no store, once its `session/update` handler has it.
 */
import type { SessionNotification } from '@acp-kit/schema';
import { Client, type ClientConnection, Connection, ConversationStore } from '@acp-kit/sdk';
import { type ClientContext, client as officialClient } from '@agentclientprotocol/sdk/experimental/v2';
import type { Drained, FromClient, Mark, ToClient } from './capacity-protocol.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { Endpoint } from './listening-agent.js';
import { officialStream } from './official-remote-client.js';
import { ourTransport } from './ours-remote-client.js';
import { pacedPrompt, readStamp, wallClock } from './paced-turn.js';
import { ownCpuMs } from './process-cpu.js';

const OPEN_CONCURRENCY = 32;
/** How long the drain waits for second clients to catch up. */
const DRAIN_BOUND_MS = 30_000;

const latency = new LatencyHistogram();
const receipts = new LatencyHistogram();
let deliveredSinceMark = 0;

/** What one client of one session has taken in. */
class Follower {
  delivered = 0;
  lastSent = 0;
  irregular = 0;
  #waiter: { target: number; resolve(): void } | undefined;

  take(text: string): void {
    const now = wallClock();
    const { stamp, sent } = readStamp(text);
    latency.add(now - stamp);
    deliveredSinceMark += 1;
    this.delivered += 1;
    if (sent !== this.lastSent + 1) this.irregular += 1;
    this.lastSent = sent;
    if (this.#waiter && this.delivered >= this.#waiter.target) {
      this.#waiter.resolve();
      this.#waiter = undefined;
    }
  }

  /** Resolves once `target` chunks are in. */
  until(target: number): Promise<void> {
    if (this.delivered >= target) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiter = { target, resolve };
    });
  }
}

/** One connection's followers, by session. */
type Followers = Map<string, Follower>;

/** A session as its first client drives it. */
interface Session {
  id: string;
  first: Follower;
  second?: Follower;
  receipts: number;
  /** Why its driving stopped early (a connection failed), if it did. */
  lost?: string;
  /** Its loop has ended. */
  settled?: boolean;
  /** Sends a prompt: its answer, and the end of the turn it asked for. */
  prompt(text: string): { answered: Promise<unknown>; ended: Promise<unknown> };
}

/** An open connection: sessions are opened on it, and it can be attached to existing ones. */
interface OpenConnection {
  newSession(): Promise<Session>;
  attach(sessionId: string): Promise<Follower>;
  close(): Promise<void>;
}

async function connectOursOnce(profile: 'http' | 'websocket', endpoint: Endpoint): Promise<OpenConnection> {
  const followers: Followers = new Map();
  class FollowingStore extends ConversationStore {
    override apply(notification: SessionNotification): void {
      super.apply(notification);
      const update = notification.update;
      if (update.sessionUpdate !== 'agent_message_chunk') return;
      const content = update.content as { type: string; text?: string };
      if (content.type === 'text') followers.get(notification.sessionId)?.take(content.text ?? '');
    }
  }
  const { transport, stop } = await ourTransport(profile, endpoint);
  const client = new Client(new Connection(transport) as ClientConnection, {
    info: { name: 'bench-capacity-client', version: '0.0.0' },
    store: new FollowingStore(),
  });
  await client.initialize();
  return {
    newSession: async () => {
      const id = await client.newSession('/repo');
      const first = new Follower();
      followers.set(id, first);
      return {
        id,
        first,
        receipts: 0,
        prompt: (text) => {
          const submission = client.submit(id, [{ type: 'text', text }]);
          return { answered: submission.messageId, ended: submission.turnEnd };
        },
      };
    },
    attach: async (sessionId) => {
      const follower = new Follower();
      followers.set(sessionId, follower);
      await client.resume(sessionId, { cwd: '/repo' });
      return follower;
    },
    close: async () => {
      client.close();
      await stop();
    },
  };
}

async function connectOfficialOnce(
  profile: 'http' | 'websocket',
  endpoint: Endpoint,
): Promise<OpenConnection> {
  const followers: Followers = new Map();
  /** Turn ends seen and awaited, per session. */
  const idles = new Map<string, { seen: number; waiter?: { target: number; resolve(): void } }>();
  const { stream } = officialStream(profile, endpoint);
  const app = officialClient({ name: 'bench-capacity-client' }).onNotification(
    'session/update',
    ({ params }) => {
      const update = params.update as {
        sessionUpdate: string;
        content?: { type: string; text?: string };
        state?: string;
        stopReason?: string;
      };
      if (update.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text')
        followers.get(params.sessionId)?.take(update.content.text ?? '');
      else if (update.sessionUpdate === 'state_update' && update.state === 'idle' && update.stopReason) {
        const idle = idles.get(params.sessionId);
        if (!idle) return;
        idle.seen += 1;
        if (idle.waiter && idle.seen >= idle.waiter.target) {
          idle.waiter.resolve();
          idle.waiter = undefined;
        }
      }
    },
  );
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let finished!: Promise<void>;
  const context = new Promise<ClientContext>((resolve, reject) => {
    finished = app.connectWith(stream, async (ctx) => {
      resolve(ctx);
      await released;
    });
    finished.catch(reject);
  });
  const ctx = await context;
  await ctx.request('initialize', { protocolVersion: 2, info: { name: 'bench', version: '0.0.0' } });
  return {
    newSession: async () => {
      const { sessionId: id } = await ctx.request('session/new', { cwd: '/repo' });
      const first = new Follower();
      followers.set(id, first);
      const idle: { seen: number; waiter?: { target: number; resolve(): void } } = { seen: 0 };
      idles.set(id, idle);
      return {
        id,
        first,
        receipts: 0,
        prompt: (text) => {
          const ended = new Promise<void>((resolve) => {
            idle.waiter = { target: idle.seen + 1, resolve };
          });
          const answered = ctx.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text }] });
          return { answered, ended };
        },
      };
    },
    attach: async (sessionId) => {
      const follower = new Follower();
      followers.set(sessionId, follower);
      await ctx.request('session/resume', { sessionId, cwd: '/repo' });
      return follower;
    },
    close: async () => {
      release();
      await finished.catch(() => undefined);
    },
  };
}

/** A small seeded random source (mulberry32), so each session's turns are the same run to run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const send = (message: FromClient): void => void process.send?.(message);
const connections: OpenConnection[] = [];
const sessions: Session[] = [];
let draining = false;
const loops: Promise<void>[] = [];

async function open(message: Extract<ToClient, { type: 'open' }>): Promise<void> {
  const profile = message.profile === 'websocket' ? 'websocket' : 'http';
  const connect = (): Promise<OpenConnection> =>
    message.implementation === 'ours'
      ? connectOursOnce(profile, message.endpoint)
      : connectOfficialOnce(profile, message.endpoint);
  const shared = message.oneConnection ? await connect() : undefined;
  if (shared) connections.push(shared);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < message.sessions) {
      const index = next;
      next += 1;
      let connection = shared;
      if (!connection) {
        connection = await connect();
        connections.push(connection);
      }
      const session = await connection.newSession();
      if (index < message.seconds) {
        const other = await connect();
        connections.push(other);
        session.second = await other.attach(session.id);
      }
      sessions[index] = session;
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, message.sessions) }, worker));
}

async function drive(session: Session, seed: number): Promise<void> {
  const draw = random(seed);
  await new Promise((resolve) => setTimeout(resolve, draw() * 1000));
  while (!draining) {
    const chunks = 60 + Math.floor(draw() * 61);
    const toolAt = draw() < 0.3 ? Math.floor(draw() * chunks) : chunks;
    const start = performance.now();
    const { answered, ended } = session.prompt(pacedPrompt(chunks, toolAt));
    await answered;
    receipts.add(performance.now() - start);
    session.receipts += 1;
    await ended;
    if (draining) break;
    await new Promise((resolve) => setTimeout(resolve, draw() * 1000));
  }
}

function mark(): Mark {
  const out: Mark = {
    type: 'mark',
    delivered: deliveredSinceMark,
    latency: latency.take(),
    receipts: receipts.take(),
    cpuMs: ownCpuMs(),
  };
  deliveredSinceMark = 0;
  return out;
}

async function drain(): Promise<Drained> {
  draining = true;
  const bound = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, DRAIN_BOUND_MS).unref());
  await Promise.race([Promise.all(loops), bound()]);
  for (const session of sessions)
    if (!session.settled)
      session.lost ??= `its turn did not end within ${DRAIN_BOUND_MS / 1000} s of the drain`;
  let behind = 0;
  await Promise.all(
    sessions.map(async (session) => {
      if (!session.second || session.lost !== undefined) return;
      const caughtUp = session.second.until(session.first.delivered).then(() => true);
      const bound = new Promise<boolean>((resolve) =>
        setTimeout(() => resolve(false), DRAIN_BOUND_MS).unref(),
      );
      if (!(await Promise.race([caughtUp, bound]))) behind += 1;
    }),
  );
  const out: Drained = {
    type: 'drained',
    agentSent: 0,
    expected: 0,
    delivered: 0,
    irregular: 0,
    withoutReceipt: 0,
    behind,
    lost: 0,
    lostReasons: [],
    sessions: sessions.length,
  };
  for (const session of sessions) {
    if (session.lost !== undefined) {
      // What the agent sent it cannot be known (its last chunks may be what was lost): left out of the counts.
      out.lost += 1;
      if (out.lostReasons.length < 3 && !out.lostReasons.includes(session.lost))
        out.lostReasons.push(session.lost);
      continue;
    }
    out.agentSent += session.first.lastSent;
    out.expected += session.first.lastSent * (session.second ? 2 : 1);
    out.delivered += session.first.delivered + (session.second?.delivered ?? 0);
    out.irregular += session.first.irregular + (session.second?.irregular ?? 0);
    if (session.receipts === 0) out.withoutReceipt += 1;
  }
  return out;
}

/** The chain of `cause`s under `error` (a failed `fetch` says only "fetch failed"; its cause says why). */
function causes(error: unknown): string {
  let text = '';
  let at: unknown = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; at !== undefined && depth < 5; depth += 1) {
    const code = (at as { code?: unknown }).code;
    text += ` ← ${at instanceof Error ? `${at.name}: ${at.message}` : String(at)}${typeof code === 'string' ? ` [${code}]` : ''}`;
    at = at instanceof Error ? at.cause : undefined;
  }
  return text;
}

let seed = 0;
process.on('message', (message: ToClient) => {
  const fail = (error: unknown): void => {
    const what = `${error instanceof Error ? (error.stack ?? error.message) : String(error)}${causes(error)}`;
    send({ type: 'failed', message: `during ${message.type} (${sessions.length} sessions open): ${what}` });
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 100);
  };
  switch (message.type) {
    case 'open':
      seed = message.seed;
      open(message).then(() => send({ type: 'opened' }), fail);
      break;
    case 'run':
      for (const [index, session] of sessions.entries()) {
        // A session whose connection fails is reported lost at the drain; the others go on.
        const loop = drive(session, seed * 100_003 + index).then(
          () => {
            session.settled = true;
          },
          (error: unknown) => {
            session.settled = true;
            session.lost = `${error instanceof Error ? error.message : String(error)}${causes(error)}`.slice(
              0,
              300,
            );
          },
        );
        loops.push(loop);
      }
      break;
    case 'mark':
      send(mark());
      break;
    case 'drain':
      drain().then(send, fail);
      break;
    case 'close':
      Promise.all(connections.map((connection) => connection.close().catch(() => undefined))).finally(() =>
        process.exit(0),
      );
      break;
  }
});
// The benchmark gone (killed, crashed): nothing is left running.
process.on('disconnect', () => process.exit(0));
