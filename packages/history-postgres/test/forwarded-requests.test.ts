/**
 * `tool_call/cancel`, `terminal/cancel` and `session/close` sent to a replica that does not run the
 * session's turn reach the replica that does (its owner), as prompts and cancels do. Two SDK agents
 * with ownership on the test server.
 */
import { afterEach, describe, expect, it } from 'vitest';
// The SDK's agent and client from its sources (the package alias maps @acp-kit/sdk to its history API).
import { Agent, type AgentSession } from '../../sdk/src/index.js';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';
import { connectClient } from './in-process-client.js';

type Update = { sessionUpdate: string; state?: string; stopReason?: string; status?: string };

interface Work {
  session?: AgentSession;
  toolCall?: AbortSignal;
  terminal?: AbortSignal;
  /** Resolves once the turn's tool call and terminal are reported. */
  started: Promise<void>;
}

describe('requests about a turn sent to a replica that does not run it', () => {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  /** A replica whose turn opens a cancellable tool call and terminal and waits for them to be cancelled. */
  const replica = async (schema: string, name: string) => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs: 60_000,
      checkEveryMs: 100,
    });
    let started = (): void => undefined;
    const work: Work = { started: new Promise((resolve) => (started = resolve)) };
    const agent = new Agent({
      info: { name, version: '0' },
      history: ownership.log,
      ownership,
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const call = await session.toolCall({ title: 'long', status: 'in_progress' }, { cancellable: true });
        const terminal = await session.terminal({}, { cancellable: true });
        work.session = session;
        work.toolCall = call.signal;
        work.terminal = terminal.signal;
        started();
        const aborted = (signal: AbortSignal) =>
          new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        await aborted(call.signal);
        await call.update({ status: 'failed' }).catch(() => undefined);
        await aborted(terminal.signal);
        await terminal.exit({ exitCode: null, signal: 'SIGTERM' }).catch(() => undefined);
        await aborted(session.signal);
        await session.idle('cancelled').catch(() => undefined);
      },
    });
    open.push(async () => {
      await ownership.close();
      await log.close();
    });
    return { agent, ownership, work };
  };

  const connect = (agent: Agent) => connectClient<Update>(agent, open);

  /** A replica whose turn runs until it is cancelled, then ends `cancelled`. */
  const waitingReplica = async (schema: string, name: string) => {
    const log = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4 });
    const ownership = await PostgresSessionOwnership.open(log, postgresUrl(), {
      replica: name,
      leaseMs: 60_000,
      checkEveryMs: 100,
    });
    let running = (): void => undefined;
    const started = new Promise<void>((resolve) => (running = resolve));
    const agent = new Agent({
      info: { name, version: '0' },
      history: ownership.log,
      ownership,
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        running();
        const { signal } = session;
        if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve));
        await session.idle('cancelled');
      },
    });
    open.push(async () => {
      await ownership.close();
      await log.close();
    });
    return { agent, started };
  };

  it('session/close sent to a non-owner ends the owner’s turn as a cancel does: idle cancelled reaches the clients of both replicas before the close is answered', async () => {
    const schema = freshSchema('fwdclose');
    const a = await waitingReplica(schema, 'a');
    const b = await waitingReplica(schema, 'b');
    const onA = await connect(a.agent);
    const onB = await connect(b.agent);
    const sessionId = await onA.client.newSession('/w');
    await onB.client.resume(sessionId, { cwd: '/w' });
    await onA.client.prompt(sessionId, [{ type: 'text', text: 'work' }]);
    await a.started;
    const cancelledIdle = (u: Update) =>
      u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason === 'cancelled';
    await expect(onB.client.closeSession(sessionId)).resolves.toEqual({});
    expect(onB.received.filter(cancelledIdle)).toHaveLength(1);
    expect(onA.received.filter(cancelledIdle)).toHaveLength(1);
  });

  it('forwards tool_call/cancel, terminal/cancel and session/close to the owner: its work stops, and the answers are the owner’s', async () => {
    const schema = freshSchema('fwd');
    const a = await replica(schema, 'a');
    const b = await replica(schema, 'b');
    const onA = await connect(a.agent);
    const onB = await connect(b.agent);
    const sessionId = await onA.client.newSession('/w');
    await onB.client.resume(sessionId, { cwd: '/w' });
    await onA.client.prompt(sessionId, [{ type: 'text', text: 'work' }]);
    await a.work.started;
    const toolCallId = (
      onA.received.find((u) => u.sessionUpdate === 'tool_call_update') as { toolCallId?: string } | undefined
    )?.toolCallId;
    const terminalId = (
      onA.received.find((u) => u.sessionUpdate === 'terminal_update') as { terminalId?: string } | undefined
    )?.terminalId;

    // Sent to B, which does not run the turn: A's tool call and terminal are cancelled.
    await expect(onB.client.cancelToolCall(sessionId, toolCallId!)).resolves.toEqual({});
    expect(a.work.toolCall!.aborted).toBe(true);
    await expect(onB.client.cancelTerminal(sessionId, terminalId!)).resolves.toEqual({});
    expect(a.work.terminal!.aborted).toBe(true);
    // The owner's refusals come back as they are.
    await expect(onB.client.cancelToolCall(sessionId, 'call_unknown')).rejects.toMatchObject({
      code: -32002,
      data: { pointer: '/params/toolCallId' },
    });
    // session/close on B closes the session on A too: its work is aborted, its live session closed.
    await expect(onB.client.closeSession(sessionId)).resolves.toEqual({});
    expect(a.work.session!.closed.aborted).toBe(true);
    expect(a.work.session!.signal.aborted).toBe(true);
  });
});
