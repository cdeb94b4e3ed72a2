import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
// The SDK's agent and client from its sources (the package alias maps @acp-kit/sdk to its history API).
import {
  Agent,
  type AgentConnection,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
} from '../../sdk/src/index.js';
import { PostgresSessionLeases, PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

type Update = { sessionUpdate: string; messageId?: string; state?: string; stopReason?: string };

interface Replica {
  name: string;
  agent: Agent;
  log: PostgresSessionLog;
  ownership: PostgresSessionOwnership;
  /** Names of the prompts this replica's onPrompt ran. */
  ran: string[];
}

interface Wired {
  client: Client;
  /** Everything received, in order: updates and prompt responses. */
  received: ({ update: Update } | { messageId: string })[];
}

describe('PostgresSessionOwnership: prompts run on the session owner, inserted once', () => {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  const replica = async (schema: string, name: string, leaseMs = 60_000): Promise<Replica> => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs,
      checkEveryMs: 100,
    });
    const ran: string[] = [];
    const agent = new Agent({
      info: { name, version: '0' },
      history: ownership.log,
      ownership,
      async onPrompt(prompt, { session }) {
        ran.push((prompt.content[0] as { text: string }).text);
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: `${name} answers` });
        await session.idle('end_turn');
      },
    });
    open.push(async () => {
      await ownership.close();
      await log.close();
    });
    return { name, agent, log, ownership, ran };
  };

  const connect = async (r: Replica): Promise<Wired> => {
    const [agentSide, clientSide] = createInProcessPair();
    r.agent.serve(new Connection(agentSide) as AgentConnection);
    const connection = new Connection(clientSide) as ClientConnection;
    const received: Wired['received'] = [];
    connection.onMessage((direction, message) => {
      if (direction !== 'in') return;
      const m = message as { method?: string; params?: { update: Update }; result?: { messageId?: string } };
      if (m.method === 'session/update') received.push({ update: m.params!.update });
      else if (typeof m.result?.messageId === 'string') received.push({ messageId: m.result.messageId });
    });
    const client = new Client(connection, { info: { name: 'c', version: '0' } });
    await client.initialize();
    open.push(async () => client.close());
    return { client, received };
  };

  it('inserts prompts sent to three replicas at once exactly once each, all run by the owner, each receipt after its report', async () => {
    const schema = freshSchema('own');
    const [a, b, c] = [await replica(schema, 'a'), await replica(schema, 'b'), await replica(schema, 'c')];
    const onA = await connect(a);
    const sessionId = await onA.client.newSession('/w');
    const onB = await connect(b);
    const onC = await connect(c);
    await onB.client.resume(sessionId, { cwd: '/w' });
    await onC.client.resume(sessionId, { cwd: '/w' });
    const sent = [onA, onB, onC].flatMap((w, i) =>
      [0, 1].map((n) => ({ w, id: w.client.prompt(sessionId, [{ type: 'text', text: `p${i}${n}` }]) })),
    );
    const ids = await Promise.all(sent.map((s) => s.id));
    expect(new Set(ids).size).toBe(6);
    expect(a.ran.sort()).toEqual(['p00', 'p01', 'p10', 'p11', 'p20', 'p21']);
    expect([...b.ran, ...c.ran]).toEqual([]);
    // Each receipt came after the submitting client was sent the inserted message.
    for (const [i, { w }] of sent.entries()) {
      const report = w.received.findIndex(
        (r) => 'update' in r && r.update.sessionUpdate === 'user_message' && r.update.messageId === ids[i],
      );
      const receipt = w.received.findIndex((r) => 'messageId' in r && r.messageId === ids[i]);
      expect(report).toBeGreaterThanOrEqual(0);
      expect(report).toBeLessThan(receipt);
    }
    // In the log, each prompt's user message once.
    const { entries } = await a.log.read(sessionId, { limit: 1000 });
    const users = entries
      .filter((e) => e.update.sessionUpdate === 'user_message')
      .map((e) => (e.update as Update).messageId);
    expect(users.sort()).toEqual([...ids].sort());
    // Forwarded rows are gone once answered.
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    const rows = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".log_prompts`);
    await admin.end();
    expect(rows.rows[0]).toEqual({ n: 0 });
  });

  /**
   * Session `s` in a fresh log, held by a replica "dead" that will never renew its lease (600 ms),
   * and the log and leases to write as it did.
   */
  const deadOwner = async (schema: string) => {
    const setup = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 2 });
    const leases = await PostgresSessionLeases.open(postgresUrl(), { schema, maxConnections: 2 });
    open.push(async () => {
      await leases.close();
      await setup.close();
    });
    await setup.createSession({ sessionId: 's', cwd: '/w' });
    const held = await leases.acquire('s', 'dead', 600);
    if (!held.acquired) throw new Error('expected the lease');
    return { setup, held };
  };

  it('takes over a session whose owner stopped renewing: ends its turn idle/error and settles the prompts it left', async () => {
    const schema = freshSchema('own');
    const b = await replica(schema, 'b', 600);
    // A replica "dead" owned the session, was mid-turn, and had taken two forwarded prompts: one
    // inserted (its ID claimed in the log), one not yet; a third waited untaken.
    const { setup, held } = await deadOwner(schema);
    await setup.appendAsOwner(
      's',
      [
        {
          update: { sessionUpdate: 'user_message', messageId: 'inserted', content: [] } as never,
          claim: { kind: 'user_message', messageId: 'inserted' },
        },
        { update: { sessionUpdate: 'state_update', state: 'running' } as never, retain: false },
      ],
      held.lease,
    );
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    open.push(() => admin.end());
    const s = `"${schema}"`;
    const insert = async (state: string, messageId: string | null) =>
      (
        await admin.query<{ id: string }>(
          `INSERT INTO ${s}.log_prompts (session_id, origin, content, state, taken_by, taken_epoch, message_id)
           VALUES ('s', 'elsewhere', $1, $2, $3, $4, $5) RETURNING id`,
          [
            JSON.stringify([{ type: 'text', text: `left ${state} ${messageId}` }]),
            state,
            state === 'taken' ? 'dead' : null,
            state === 'taken' ? held.lease.epoch : null,
            messageId,
          ],
        )
      ).rows[0]!.id;
    const takenInserted = await insert('taken', 'inserted');
    const takenNot = await insert('taken', 'never-appended');
    const pending = await insert('pending', null);

    // A client on b follows the session; b sees it busy and, once the lease lapses, takes it over.
    const onB = await connect(b);
    await onB.client.resume('s', { cwd: '/w' });
    await until(() => onB.received.some((r) => 'update' in r && r.update.stopReason === 'error'));
    const ended = onB.received.find((r) => 'update' in r && r.update.stopReason === 'error') as {
      update: Update;
    };
    expect(ended.update).toMatchObject({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'error' });
    expect(b.ownership.leaseOf('s')).toMatchObject({ owner: 'b', epoch: held.lease.epoch + 1 });

    const state = async (id: string) =>
      (await admin.query(`SELECT state, message_id, error FROM ${s}.log_prompts WHERE id = $1`, [id]))
        .rows[0];
    await until(async () => (await state(pending)).state === 'inserted');
    expect(await state(takenInserted)).toMatchObject({ state: 'inserted', message_id: 'inserted' });
    expect(await state(takenNot)).toMatchObject({ state: 'rejected' });
    expect(JSON.parse((await state(takenNot)).error)).toMatchObject({ code: -32603 });
    expect(b.ran).toEqual(['left pending null']);
    // The dead owner can no longer write.
    await expect(
      setup.appendAsOwner(
        's',
        [{ update: { sessionUpdate: 'state_update', state: 'idle' } as never }],
        held.lease,
      ),
    ).rejects.toMatchObject({ code: 'locked' });
    // And the session is served: a prompt on b runs there.
    const id = await onB.client.prompt('s', [{ type: 'text', text: 'after' }]);
    expect(typeof id).toBe('string');
    expect(b.ran).toEqual(['left pending null', 'after']);
  });

  it('takes over an idle session whose dead owner left background work listed: ends each item with a final status saying why before the list that drops it', async () => {
    const schema = freshSchema('orphan');
    const b = await replica(schema, 'b', 600);
    // The dead owner ended its turn idle with three items in the background: a terminal still
    // writing, a tool call in progress, and a terminal whose exit it appended just before dying
    // (before the state update that would have dropped it).
    const { setup, held } = await deadOwner(schema);
    const u = (update: object, retain = true) => ({ update: update as never, retain });
    await setup.appendAsOwner(
      's',
      [
        u({ sessionUpdate: 'terminal_update', terminalId: 't1', command: 'sleep 30' }),
        u({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', title: 'Subtask', status: 'in_progress' }),
        u({ sessionUpdate: 'terminal_update', terminalId: 't2', command: 'sleep 1' }),
        u(
          {
            sessionUpdate: 'state_update',
            state: 'idle',
            stopReason: 'end_turn',
            background: [
              { type: 'terminal', terminalId: 't1' },
              { type: 'tool_call', toolCallId: 'c1' },
              { type: 'terminal', terminalId: 't2' },
            ],
          },
          false,
        ),
        u({ sessionUpdate: 'terminal_output_chunk', terminalId: 't1', data: 'tick 1\n' }),
        u({ sessionUpdate: 'terminal_update', terminalId: 't2', exitStatus: { exitCode: 0 } }),
      ],
      held.lease,
    );

    // A client on b resumes the session: idle, three items listed. b takes it over once the lease lapses.
    const onB = await connect(b);
    await onB.client.resume('s', { cwd: '/w' });
    const updates = () =>
      onB.received.flatMap((r) => ('update' in r ? [r.update as Record<string, unknown>] : []));
    const dropped = (x: Record<string, unknown>) =>
      x.sessionUpdate === 'state_update' && Array.isArray(x.background) && x.background.length === 0;
    await until(() => updates().some(dropped));
    expect(b.ownership.leaseOf('s')).toMatchObject({ owner: 'b', epoch: held.lease.epoch + 1 });
    const seen = updates();
    const listedFirst = seen.find((x) => x.sessionUpdate === 'state_update');
    expect(listedFirst?.background).toHaveLength(3);
    const end = seen.findIndex(dropped);
    const ends = seen.slice(seen.indexOf(listedFirst!) + 1, end);
    expect(ends.map((x) => x.sessionUpdate)).toEqual([
      'notice',
      'terminal_update',
      'tool_call_content_chunk',
      'tool_call_update',
    ]);
    expect(ends[0]).toMatchObject({ severity: 'error', title: 'Background work was interrupted' });
    expect(ends[0]!.description).toContain('terminal t1, tool call c1');
    expect(ends[1]).toEqual({
      sessionUpdate: 'terminal_update',
      terminalId: 't1',
      exitStatus: { exitCode: null, signal: null },
    });
    expect(JSON.stringify(ends[2])).toContain('another replica took the session over');
    expect(ends[3]).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'failed' });
    // The list is dropped by a repeated idle: it ends no turn (the dead owner's turn had ended).
    expect(seen[end]).toEqual({ sessionUpdate: 'state_update', state: 'idle', background: [] });
    // The ends are retained: a later replay shows how the work ended.
    const replayed = await setup.read('s', { afterSeq: 0, limit: 100, retainedOnly: true });
    expect(replayed.entries.map((e) => e.update.sessionUpdate).slice(-4)).toEqual(
      ends.map((x) => x.sessionUpdate),
    );
  });

  it('ends a dead owner’s turn and its background work together: the terminal’s end first, then one idle/error that drops the list', async () => {
    const schema = freshSchema('orphan_turn');
    const b = await replica(schema, 'b', 600);
    const { setup, held } = await deadOwner(schema);
    const u = (update: object, retain = true) => ({ update: update as never, retain });
    await setup.appendAsOwner(
      's',
      [
        u({ sessionUpdate: 'terminal_update', terminalId: 't1', command: 'npm run watch' }),
        u(
          {
            sessionUpdate: 'state_update',
            state: 'running',
            background: [{ type: 'terminal', terminalId: 't1' }],
          },
          false,
        ),
      ],
      held.lease,
    );
    const onB = await connect(b);
    await onB.client.resume('s', { cwd: '/w' });
    const updates = () =>
      onB.received.flatMap((r) => ('update' in r ? [r.update as Record<string, unknown>] : []));
    await until(() => updates().some((x) => x.stopReason === 'error'));
    const seen = updates();
    const exit = seen.findIndex((x) => x.sessionUpdate === 'terminal_update');
    const end = seen.findIndex((x) => x.stopReason === 'error');
    expect(exit).toBeGreaterThan(0);
    expect(exit).toBeLessThan(end);
    expect(seen[end]).toMatchObject({ state: 'idle', stopReason: 'error', background: [] });
    expect(seen.filter((x) => x.sessionUpdate === 'state_update' && x.state === 'idle')).toHaveLength(1);
  });
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
