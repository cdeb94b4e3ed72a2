/**
 * Split brain: a replica paused past its lease (SIGSTOP, a long GC pause) wakes up after another
 * replica took its session over and started a turn there. Renewals run by hand (`renewals:
 * 'manual'`) and the lease is expired in the database, so the race is the same on every run.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
// The SDK's agent and client from its sources (the package alias maps @acp-kit/sdk to its history API).
import { Agent } from '../../sdk/src/index.js';
import { PostgresSessionLog, PostgresSessionOwnership, SessionNotOwnedError } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';
import { connectClient } from './in-process-client.js';

type Update = {
  sessionUpdate: string;
  state?: string;
  stopReason?: string;
  content?: { text?: string };
};

interface Gate {
  wait: Promise<void>;
  open: () => void;
}

function gate(): Gate {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

interface Replica {
  agent: Agent;
  ownership: PostgresSessionOwnership;
  /** Opened to let the replica's turn go on after its first chunk. */
  resume: Gate;
  /** Set once the turn wrote its first chunk. */
  streaming: Gate;
  /** What the turn's writes threw, in order. */
  errors: unknown[];
  /** Settles when the turn is over (its last write resolved or failed). */
  done: Gate;
}

describe('a replica that lost its lease while paused', () => {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  const replica = async (schema: string, name: string): Promise<Replica> => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs: 60_000,
      // Nothing happens on a timer: renewals run when the test says, takeovers when a prompt comes.
      renewals: 'manual',
      checkEveryMs: 3_600_000,
    });
    const r: Replica = {
      agent: undefined as unknown as Agent,
      ownership,
      resume: gate(),
      streaming: gate(),
      errors: [],
      done: gate(),
    };
    r.agent = new Agent({
      info: { name, version: '0' },
      history: ownership.log,
      ownership,
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        try {
          await reply.chunk({ type: 'text', text: `${name}1;` });
          r.streaming.open();
          await r.resume.wait;
          await reply.chunk({ type: 'text', text: `${name}2;` });
          await session.idle('end_turn');
        } catch (error) {
          r.errors.push(error);
          // As the reference agent does: end the turn with stop reason error.
          await session
            .idle('error', undefined, { code: -32603, message: String(error) })
            .catch((again: unknown) => r.errors.push(again));
        } finally {
          r.done.open();
        }
      },
    });
    open.push(async () => {
      r.resume.open();
      await ownership.close();
      await log.close();
    });
    return r;
  };

  const connect = (agent: Agent) => connectClient<Update>(agent, open);

  // Woken, the replica either renews first (and learns it lost the lease) or writes first (with the
  // lease it still believes it holds, which the database refuses).
  it.each(['renews', 'writes'])(
    'writes nothing more to the session when it first %s on waking: none of its chunks or its idle land in the new owner’s turn, each write is refused with SessionNotOwnedError, and its clients see the takeover end its turn',
    async (first) => {
      const schema = freshSchema('split');
      const admin = new pg.Client({ connectionString: postgresUrl() });
      await admin.connect();
      open.push(() => admin.end());
      const a = await replica(schema, 'a');
      const b = await replica(schema, 'b');
      const onA = await connect(a.agent);
      const onB = await connect(b.agent);
      const sessionId = await onA.client.newSession('/w');
      await onB.client.resume(sessionId, { cwd: '/w' });

      // A streams a turn, then is "paused" past its lease: the lease lapses in the database.
      await onA.client.prompt(sessionId, [{ type: 'text', text: 'first' }]);
      await a.streaming.wait;
      await admin.query(
        `UPDATE "${schema}".log_leases SET expires_at = clock_timestamp() WHERE session_id = $1`,
        [sessionId],
      );
      // B is prompted, takes the session over (ending A's turn idle/error) and streams its own turn.
      await onB.client.prompt(sessionId, [{ type: 'text', text: 'second' }]);
      await b.streaming.wait;
      expect(b.ownership.leaseOf(sessionId)).toMatchObject({ owner: 'b', epoch: 2 });

      // A wakes up: its renewal finds the lease gone, and its turn goes on writing.
      if (first === 'renews') {
        await a.ownership.renewNow();
        expect(a.ownership.leaseOf(sessionId)).toBeUndefined();
      }
      a.resume.open();
      await a.done.wait;
      if (first === 'writes') await a.ownership.renewNow();
      expect(a.ownership.leaseOf(sessionId)).toBeUndefined();
      // B's turn ends normally.
      b.resume.open();
      await b.done.wait;
      expect(b.errors).toEqual([]);

      const entries = (await b.ownership.log.read(sessionId, { limit: 1000 })).entries.map(
        (e) => e.update as unknown as Update,
      );
      const shape = entries.map((u) =>
        u.sessionUpdate === 'state_update'
          ? `${u.state}${u.stopReason ? `/${u.stopReason}` : ''}`
          : u.sessionUpdate === 'agent_message_chunk'
            ? u.content!.text!
            : u.sessionUpdate,
      );
      expect(shape).toEqual([
        'user_message',
        'running',
        'a1;',
        'idle/error', // the takeover ends A's turn
        'user_message',
        'running',
        'b1;',
        'b2;',
        'idle/end_turn',
      ]);
      // Every write A tried after losing the lease was refused, with the typed error.
      expect(a.errors.length).toBeGreaterThanOrEqual(2);
      for (const error of a.errors) {
        expect(error).toBeInstanceOf(SessionNotOwnedError);
        expect(error).toMatchObject({ code: 'locked', sessionId });
      }
      // A's client was told: the takeover's idle/error ended the turn it watched, then B's turn.
      await until(() => onA.received.some((u) => u.stopReason === 'end_turn'));
      expect(
        onA.received.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.stopReason ?? u.state),
      ).toEqual(['running', 'error', 'running', 'end_turn']);
    },
  );
});

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
