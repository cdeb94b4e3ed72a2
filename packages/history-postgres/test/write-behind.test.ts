/**
 * An SDK agent streaming a reply into PostgreSQL, each chunk awaited as agents write them: the log
 * suggests writing chunks behind (DEFAULT_WRITE_BEHIND), so the chunks queued while an append is
 * in flight go out together. Two replicas, each an Agent on its own PostgresSessionLog with
 * ownership (fenced appends), on the test server.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
// The SDK's agent and client from its sources (the package alias maps @acp-kit/sdk to its history API).
import { Agent } from '../../sdk/src/index.js';
import { DEFAULT_WRITE_BEHIND, PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';
import { connectClient } from './in-process-client.js';

const CHUNKS = 200;
type Update = { sessionUpdate: string; state?: string; stopReason?: string; content?: { text?: string } };

interface Replica {
  agent: Agent;
  log: PostgresSessionLog;
  /** Fenced appends this replica made (one statement each, or one group commit). */
  appends: () => number;
  /** What the agent's stream threw, if anything, and when idle() resolved what the log held. */
  outcome: { error?: unknown; inLogAtIdle?: number };
}

describe('chunks an agent streams into PostgreSQL are written behind', () => {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  /** A replica whose agent streams CHUNKS chunks per prompt, calling `between(i)` before chunk i. */
  const replica = async (
    schema: string,
    name: string,
    between: (i: number) => Promise<void> = async () => undefined,
  ): Promise<Replica> => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    let appends = 0;
    const appendAsOwner = log.appendAsOwner.bind(log);
    log.appendAsOwner = (...args) => {
      appends++;
      return appendAsOwner(...args);
    };
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs: 60_000,
      checkEveryMs: 100,
    });
    const outcome: Replica['outcome'] = {};
    const agent = new Agent({
      info: { name, version: '0' },
      history: ownership.log,
      ownership,
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        try {
          for (let i = 0; i < CHUNKS; i++) {
            await between(i);
            await reply.chunk({ type: 'text', text: `${i};` });
          }
          await session.idle('end_turn');
          outcome.inLogAtIdle = (await log.read(session.id, { limit: 10_000 })).entries.length;
        } catch (error) {
          outcome.error = error;
        }
      },
    });
    open.push(async () => {
      await ownership.close();
      await log.close();
    });
    return { agent, log, appends: () => appends, outcome };
  };

  const connect = (agent: Agent) => connectClient<Update>(agent, open);

  /** The idle that ends a turn; a resume's state report has no stop reason. */
  const endsTurn = (u: Update) => u.state === 'idle' && u.stopReason !== undefined;

  const texts = (updates: readonly Update[]) =>
    updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content!.text!);

  it('in far fewer statements than chunks; a client on another replica gets the whole reply in order, and idle() resolves with all of it in the log', async () => {
    expect(DEFAULT_WRITE_BEHIND).toEqual({ entries: 512, bytes: 1024 * 1024 });
    const schema = freshSchema('wb');
    const a = await replica(schema, 'a');
    const b = await replica(schema, 'b');
    const onA = await connect(a.agent);
    const onB = await connect(b.agent);
    const sessionId = await onA.client.newSession('/w');
    await onB.client.resume(sessionId, { cwd: '/w' });
    const before = a.appends();
    await onA.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await until(() => a.outcome.inLogAtIdle !== undefined || a.outcome.error !== undefined);
    expect(a.outcome.error).toBeUndefined();
    // The user message, running, the reply's first chunk (its claim) and idle each wait for their
    // append; the other 199 chunks share a few.
    expect(a.appends() - before).toBeLessThan(CHUNKS / 4);
    // user message + running + 200 chunks + idle
    expect(a.outcome.inLogAtIdle).toBe(CHUNKS + 3);
    const whole = Array.from({ length: CHUNKS }, (_, i) => `${i};`);
    // The turn's own idle (with its stop reason): B already holds the idle its resume reported.
    await until(() => onB.received.some(endsTurn));
    expect(texts(onB.received)).toEqual(whole);
    await until(() => onA.received.some(endsTurn));
    expect(texts(onA.received)).toEqual(whole);
  });

  it('a replica whose lease was taken mid-stream writes none of the chunks after the refused append: the log holds a reply without a hole, and the agent gets `locked`', async () => {
    const schema = freshSchema('wbl');
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    open.push(() => admin.end());
    let sessionId = '';
    const a = await replica(schema, 'a', async (i) => {
      if (i === 100) {
        // Another replica takes the session over (a new epoch): a's fence no longer holds.
        await admin.query(
          `UPDATE "${schema}".log_leases SET owner = 'thief', epoch = epoch + 1 WHERE session_id = $1`,
          [sessionId],
        );
      }
      // Slow enough for appends to complete during the stream.
      if (i % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    });
    const onA = await connect(a.agent);
    sessionId = await onA.client.newSession('/w');
    await onA.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await until(() => a.outcome.error !== undefined);
    expect(a.outcome.error).toMatchObject({ code: 'locked' });
    const retained = texts(
      (await a.log.read(sessionId, { limit: 10_000 })).entries.map((e) => e.update as unknown as Update),
    );
    expect(retained.length).toBeGreaterThan(0);
    expect(retained.length).toBeLessThanOrEqual(100);
    expect(retained).toEqual(Array.from({ length: retained.length }, (_, i) => `${i};`));
    // The client saw exactly what the log holds.
    await until(() => texts(onA.received).length >= retained.length);
    expect(texts(onA.received)).toEqual(retained);
  });

  it('is what the log suggests unless told otherwise: other limits, none with false, and bad limits refused at their pointer', async () => {
    const schema = freshSchema('wbo');
    const other = await PostgresSessionLog.open(postgresUrl(), {
      schema,
      writeBehind: { entries: 8, bytes: 4096 },
    });
    const none = await PostgresSessionLog.open(postgresUrl(), { schema, writeBehind: false });
    open.push(async () => {
      await other.close();
      await none.close();
    });
    expect(other.writeBehind).toEqual({ entries: 8, bytes: 4096 });
    expect(none.writeBehind).toBeUndefined();
    for (const [writeBehind, pointer] of [
      [{ entries: 0, bytes: 10 }, '/writeBehind/entries'],
      [{ entries: 1, bytes: -1 }, '/writeBehind/bytes'],
      [{ entries: 1 }, '/writeBehind/bytes'],
    ] as const) {
      const error = await PostgresSessionLog.open(postgresUrl(), {
        schema,
        writeBehind: writeBehind as never,
      }).then(
        () => undefined,
        (caught: unknown) => caught as { code?: string; pointer?: string },
      );
      expect(error).toMatchObject({ code: 'invalid_argument', pointer });
    }
  });
});

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
