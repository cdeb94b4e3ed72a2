/**
 * An agent that ends its turn exactly once (one `idle()`, no retry) while the database goes away
 * under the chunks it streamed just before (written behind). The SDK's writer still attempts that
 * idle — as idle/error, since the reply stops where the log lost it — so the ownership owes it and
 * writes it once the database is back: one turn end for the clients of both replicas. Before, the
 * idle was failed without being attempted, nothing owed it, and the session stayed `running`.
 */
import { HistoryStoreError } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
// The SDK's agent and client from its sources (the package alias maps @acp-kit/sdk to its history API).
import { Agent } from '../../sdk/src/index.js';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';
import { connectClient } from './in-process-client.js';

type Update = {
  sessionUpdate: string;
  state?: string;
  stopReason?: string;
  error?: { code: number; message: string };
  content?: { text?: string };
};

/** The database as the test plays it: up, or down (appends held until `fail()`, then refused). */
class Outage {
  down = false;
  #held: Promise<void> | undefined;
  #fail = (): void => undefined;

  goDown(): void {
    this.down = true;
    this.#held = new Promise((resolve) => {
      this.#fail = resolve;
    });
  }

  /** The appends held so far fail now, and every later one at once, until `comeBack()`. */
  fail(): void {
    this.#fail();
  }

  comeBack(): void {
    this.down = false;
  }

  async refuse(): Promise<never> {
    await this.#held;
    throw new HistoryStoreError('io', 'cannot append to the session: PostgreSQL failed (57P01)');
  }
}

describe('a turn ended once while the chunks written behind it are lost to a database outage', () => {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  const replica = async (
    schema: string,
    name: string,
    outage: Outage,
    onPrompt: ConstructorParameters<typeof Agent>[0]['onPrompt'],
  ) => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    const appendAsOwner = log.appendAsOwner.bind(log);
    const attempts: Update[][] = [];
    log.appendAsOwner = (sessionId, entries, lease) => {
      attempts.push(entries.map((entry) => entry.update as unknown as Update));
      return outage.down ? outage.refuse() : appendAsOwner(sessionId, entries, lease);
    };
    const lastState = log.lastState.bind(log);
    log.lastState = (sessionId) => (outage.down ? outage.refuse() : lastState(sessionId));
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs: 60_000,
      checkEveryMs: 100,
    });
    const agent = new Agent({ info: { name, version: '0' }, history: ownership.log, ownership, onPrompt });
    open.push(async () => {
      await ownership.close();
      await log.close();
    });
    return { agent, log, attempts };
  };

  const connect = (agent: Agent) => connectClient<Update>(agent, open);

  const turnEnds = (updates: readonly Update[]) =>
    updates.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason);
  const texts = (updates: readonly Update[]) =>
    updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content!.text!);

  it('is written by the ownership once the database is back: one idle/error for the clients of every replica, and the log holds it', async () => {
    const schema = freshSchema('owedlost');
    const outage = new Outage();
    const idle: { called: boolean; error?: unknown; resolved?: boolean } = { called: false };
    const a = await replica(schema, 'a', outage, async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: 'first;' });
      // The database goes away: these chunks are queued behind an append that will fail.
      outage.goDown();
      await reply.chunk({ type: 'text', text: 'a;' });
      await reply.chunk({ type: 'text', text: 'b;' });
      const ending = session.idle('end_turn');
      idle.called = true;
      await ending.then(
        () => {
          idle.resolved = true;
        },
        (error: unknown) => {
          idle.error = error;
        },
      );
    });
    const b = await replica(schema, 'b', outage, async (prompt) => {
      prompt.reject({ code: -32603, message: 'not here' });
    });
    const onA = await connect(a.agent);
    const onB = await connect(b.agent);
    const sessionId = await onA.client.newSession('/w');
    await onB.client.resume(sessionId, { cwd: '/w' });
    await onA.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await until(() => idle.called);

    // The chunks' append fails, and the idle behind them is still tried (and fails: still down).
    outage.fail();
    await until(() => idle.error !== undefined || idle.resolved === true);
    expect(idle.error).toMatchObject({ code: 'io' });
    // The last two appends tried: the chunks' (`b;` never, it followed the hole), then the idle's.
    expect(a.attempts.slice(-2).map((updates) => updates.map((u) => u.content?.text ?? u.state))).toEqual([
      ['a;'],
      ['idle'],
    ]);

    // The database is back: the ownership writes the idle it owes.
    outage.comeBack();
    await until(() => turnEnds(onA.received).length > 0 && turnEnds(onB.received).length > 0);
    for (const received of [onA.received, onB.received]) {
      expect(turnEnds(received)).toEqual([
        {
          sessionUpdate: 'state_update',
          state: 'idle',
          stopReason: 'error',
          error: { code: -32603, message: expect.stringMatching(/could not be stored/) },
        },
      ]);
      expect(texts(received)).toEqual(['first;']);
    }
    const states = (await a.log.read(sessionId, { limit: 100 })).entries
      .map((entry) => entry.update as unknown as Update)
      .filter((update) => update.sessionUpdate === 'state_update')
      .map((update) => `${update.state}${update.stopReason ? `/${update.stopReason}` : ''}`);
    expect(states).toEqual(['running', 'idle/error']);
    // Written once: nothing more arrives after a few retry periods.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(turnEnds(onA.received)).toHaveLength(1);
    expect(turnEnds(onB.received)).toHaveLength(1);
  });
});

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
