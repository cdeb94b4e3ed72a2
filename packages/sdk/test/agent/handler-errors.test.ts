import { describe, expect, it } from 'vitest';
import { Agent, type HandlerErrorContext } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';
import { tick, waitFor, wire } from './harness.js';

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
