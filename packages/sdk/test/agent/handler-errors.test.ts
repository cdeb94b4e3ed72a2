import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions, type HandlerErrorContext } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';
import { type Received, tick, updates, waitFor, wire } from './harness.js';

const info = { name: 'test-agent', version: '0.0.0' };
const hello = [{ type: 'text' as const, text: 'hello' }] as [{ type: 'text'; text: string }];

function recordingAgent(handlers: Pick<ConstructorParameters<typeof Agent>[0], 'onPrompt' | 'onCancel'>) {
  const seen: { error: unknown; context: HandlerErrorContext }[] = [];
  const agent = new Agent({
    info,
    ...handlers,
    onHandlerError: (error, context) => seen.push({ error, context }),
  });
  return { agent, seen };
}

describe('application handler errors reach onHandlerError', () => {
  it('hands a synchronous onPrompt exception to the hook while the client gets -32603', async () => {
    const boom = new Error('onPrompt exploded');
    const { agent, seen } = recordingAgent({
      onPrompt: () => {
        throw boom;
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await expect(w.client.prompt(sessionId, hello)).rejects.toMatchObject({ code: -32603 });
    expect(seen).toEqual([{ error: boom, context: { handler: 'onPrompt', sessionId } }]);
  });

  it('hands a rejected async onPrompt to the hook, also after the prompt was inserted', async () => {
    const boom = new Error('after insertion');
    const { agent, seen } = recordingAgent({
      onPrompt: async (prompt) => {
        await prompt.insert();
        throw boom;
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, hello);
    await waitFor(() => seen.length > 0);
    expect(seen).toEqual([{ error: boom, context: { handler: 'onPrompt', sessionId } }]);
  });

  it('hands an onCancel exception to the hook', async () => {
    const boom = new Error('onCancel exploded');
    const { agent, seen } = recordingAgent({
      onPrompt: async (prompt) => {
        await prompt.insert();
      },
      onCancel: () => {
        throw boom;
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, hello);
    await w.client.cancel(sessionId);
    await waitFor(() => seen.length > 0);
    expect(seen).toEqual([{ error: boom, context: { handler: 'onCancel', sessionId } }]);
  });

  it('keeps serving when the hook itself throws', async () => {
    let calls = 0;
    const agent = new Agent({
      info,
      onPrompt: () => {
        calls += 1;
        throw new Error('handler');
      },
      onHandlerError: () => {
        throw new Error('hook');
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await expect(w.client.prompt(sessionId, hello)).rejects.toMatchObject({ code: -32603 });
    await expect(w.client.prompt(sessionId, hello)).rejects.toMatchObject({ code: -32603 });
    await tick();
    expect(calls).toBe(2);
  });
});

/** The `state_update`s a client received, in order, without their background lists. */
function states(received: Received[]): Record<string, unknown>[] {
  return updates(received, 'state_update').map((update) => {
    const { sessionUpdate: _, background: __, ...state } = update as Record<string, unknown>;
    return state;
  });
}

/** An agent whose first `onPrompt` call is `first`; every later one inserts, runs and ends its turn. */
function firstFailsThenServes(first: AgentOptions['onPrompt']) {
  let calls = 0;
  const serve: AgentOptions['onPrompt'] = async (prompt, { session }) => {
    await prompt.insert();
    await session.running();
    await session.idle('end_turn');
  };
  return recordingAgent({
    onPrompt: (prompt, context) => {
      calls += 1;
      return calls === 1 ? first(prompt, context) : serve(prompt, context);
    },
  });
}

describe('a prompt handler that fails after its prompt was inserted', () => {
  // The error's own text never reaches a client: it may hold secrets.
  const boom = new Error('failed with token sk-secret-1234');
  const failedTurn = {
    state: 'idle',
    stopReason: 'error',
    error: { code: -32603, message: expect.stringMatching(/prompt handler failed/) },
  };

  it('ends the open turn with one idle/error -32603 when the handler throws synchronously', async () => {
    const { agent, seen } = firstFailsThenServes((prompt, { session }) => {
      void prompt.insert();
      void session.running();
      throw boom;
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    expect(await w.client.prompt(sessionId, hello)).toMatch(/.+/);
    await w.until((r) => states(r).some((s) => s.state === 'idle'));
    await tick(30);
    expect(states(w.received)).toEqual([{ state: 'running' }, failedTurn]);
    expect(JSON.stringify(w.received)).not.toContain('sk-secret');
    expect(seen).toEqual([{ error: boom, context: { handler: 'onPrompt', sessionId } }]);
    // The session is not frozen: the next prompt is served and its turn ends normally.
    expect(await w.client.prompt(sessionId, hello)).toMatch(/.+/);
    await w.until((r) => states(r).some((s) => s.stopReason === 'end_turn'));
    expect(states(w.received)).toEqual([
      { state: 'running' },
      failedTurn,
      { state: 'running' },
      { state: 'idle', stopReason: 'end_turn' },
    ]);
    expect(updates(w.received, 'user_message')).toHaveLength(2);
  });

  it('ends the open turn with one idle/error -32603 when the handler rejects', async () => {
    const { agent, seen } = firstFailsThenServes(async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      throw boom;
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    expect(await w.client.prompt(sessionId, hello)).toMatch(/.+/);
    await w.until((r) => states(r).some((s) => s.state === 'idle'));
    await tick(30);
    expect(states(w.received)).toEqual([{ state: 'running' }, failedTurn]);
    expect(JSON.stringify(w.received)).not.toContain('sk-secret');
    expect(seen).toEqual([{ error: boom, context: { handler: 'onPrompt', sessionId } }]);
    expect(await w.client.prompt(sessionId, hello)).toMatch(/.+/);
    await w.until((r) => states(r).some((s) => s.stopReason === 'end_turn'));
    expect(states(w.received)).toEqual([
      { state: 'running' },
      failedTurn,
      { state: 'running' },
      { state: 'idle', stopReason: 'end_turn' },
    ]);
  });

  it('ends a turn left in requires_action', async () => {
    const { agent, seen } = firstFailsThenServes(async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      await session.requiresAction();
      throw boom;
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, hello);
    await w.until((r) => states(r).some((s) => s.state === 'idle'));
    await tick(30);
    expect(states(w.received)).toEqual([{ state: 'running' }, { state: 'requires_action' }, failedTurn]);
    expect(seen).toHaveLength(1);
  });

  it('ends the turn as cancelled, with no error, when the handler throws after session/cancel aborted its signal', async () => {
    const aborted = new DOMException('The operation was aborted.', 'AbortError');
    const { agent, seen } = firstFailsThenServes(async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      // A library call that rejects with an AbortError when the turn's signal aborts (at once if
      // it already has).
      await new Promise((_resolve, reject) => {
        if (session.signal.aborted) reject(aborted);
        session.signal.addEventListener('abort', () => reject(aborted), { once: true });
      });
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, hello);
    await w.until((r) => states(r).some((s) => s.state === 'running'));
    await w.client.cancel(sessionId);
    await w.until((r) => states(r).some((s) => s.state === 'idle'));
    await tick(30);
    expect(states(w.received)).toEqual([{ state: 'running' }, { state: 'idle', stopReason: 'cancelled' }]);
    expect(seen).toEqual([{ error: aborted, context: { handler: 'onPrompt', sessionId } }]);
  });

  it('sends no second idle when the handler ended its turn and then threw', async () => {
    const { agent, seen } = firstFailsThenServes(async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      await session.idle('end_turn');
      throw boom;
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, hello);
    await waitFor(() => seen.length > 0);
    await tick(30);
    expect(states(w.received)).toEqual([{ state: 'running' }, { state: 'idle', stopReason: 'end_turn' }]);
    expect(seen).toEqual([{ error: boom, context: { handler: 'onPrompt', sessionId } }]);
  });

  it('sends no second idle when the handler threw while its idle was still being written', async () => {
    const { agent, seen } = firstFailsThenServes(async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      void session.idle('end_turn');
      throw boom;
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, hello);
    await waitFor(() => seen.length > 0);
    await tick(30);
    expect(states(w.received)).toEqual([{ state: 'running' }, { state: 'idle', stopReason: 'end_turn' }]);
  });

  it("ends the shared turn when the handler of a prompt inserted into another prompt's turn fails", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const { agent, seen } = recordingAgent({
      onPrompt: async (prompt, { session }) => {
        calls += 1;
        await prompt.insert();
        if (calls === 1) {
          await session.running();
          await released;
          // The turn was already ended for the failed handler: this idle ends nothing new.
          if (session.activity !== 'idle') await session.idle('end_turn');
          return;
        }
        throw boom;
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await w.client.prompt(sessionId, hello);
    await w.until((r) => states(r).some((s) => s.state === 'running'));
    await w.client.prompt(sessionId, hello);
    await w.until((r) => states(r).some((s) => s.state === 'idle'));
    release();
    await tick(30);
    expect(states(w.received)).toEqual([{ state: 'running' }, failedTurn]);
    expect(seen).toEqual([{ error: boom, context: { handler: 'onPrompt', sessionId } }]);
  });

  it('still answers -32603 and inserts nothing when the handler throws before inserting', async () => {
    const { agent, seen } = recordingAgent({
      onPrompt: () => {
        throw boom;
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const refused = await w.client.prompt(sessionId, hello).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32603, message: 'Internal error' });
    await tick(30);
    expect(updates(w.received, 'user_message')).toEqual([]);
    expect(states(w.received)).toEqual([]);
    expect(seen).toEqual([{ error: boom, context: { handler: 'onPrompt', sessionId } }]);
  });
});

describe('untyped connections', () => {
  it('serves and drives a plain `new Connection(t)` without annotations or casts', async () => {
    const agent = new Agent({ info, onPrompt: (prompt) => void prompt.insert() });
    const [agentSide, clientSide] = createInProcessPair();
    const served = new Connection(agentSide);
    agent.serve(served);
    const connection = new Connection(clientSide);
    const client = new Client(connection, { info: { name: 'test-client', version: '0.0.0' } });
    await client.initialize();
    const sessionId = await client.newSession('/work');
    expect(await client.prompt(sessionId, hello)).toMatch(/.+/);
    client.close();
  });
});

describe('inline untyped connections', () => {
  it('serves `agent.serve(new Connection(t))` and drives `new Client(new Connection(t), …)`', async () => {
    const agent = new Agent({ info, onPrompt: (prompt) => void prompt.insert() });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(new Connection(agentSide));
    const client = new Client(new Connection(clientSide), {
      info: { name: 'test-client', version: '0.0.0' },
    });
    await client.initialize();
    const sessionId = await client.newSession('/work');
    expect(await client.prompt(sessionId, hello)).toMatch(/.+/);
    client.close();
  });
});
