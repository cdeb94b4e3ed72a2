import { describe, expect, it } from 'vitest';
import { Agent, type PendingPrompt } from '../../src/agent/index.js';
import { ErrorCodes, RpcError } from '../../src/rpc/index.js';
import { tick, updates, waitFor, wire } from './harness.js';

const info = { name: 'test-agent', version: '0.0.0' };
const text = (t: string) => [{ type: 'text' as const, text: t }] as [{ type: 'text'; text: string }];

function holdingAgent() {
  const held: PendingPrompt[] = [];
  const agent = new Agent({ info, onPrompt: (prompt) => void held.push(prompt) });
  return { agent, held };
}

describe('pending prompts', () => {
  it('sends no response while the prompt is held, and answers with the messageId once inserted', async () => {
    const { agent, held } = holdingAgent();
    const w = wire(agent);
    await w.client.initialize();
    const sessionId = await w.client.newSession('/work');
    let settled = false;
    const receipt = w.client.prompt(sessionId, text('hello')).finally(() => {
      settled = true;
    });
    await waitFor(() => held.length === 1);
    await tick(30);
    expect(settled).toBe(false);
    expect(w.received.filter((r) => r.type === 'response')).toHaveLength(2); // initialize, session/new
    const id = await held[0]!.insert();
    await expect(receipt).resolves.toBe(id);
  });

  it('reports the user message under the returned ID before the response reaches the submitter', async () => {
    const { agent, held } = holdingAgent();
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const receipt = w.client.prompt(sessionId, text('hello'));
    await waitFor(() => held.length === 1);
    const id = await held[0]!.insert();
    await receipt;
    const userIndex = w.received.findIndex(
      (r) => r.type === 'update' && r.params.update.sessionUpdate === 'user_message',
    );
    const responseIndex = w.received.findIndex(
      (r) => r.type === 'response' && (r.result as { messageId?: string })?.messageId === id,
    );
    expect(userIndex).toBeGreaterThanOrEqual(0);
    expect(userIndex).toBeLessThan(responseIndex);
    expect(updates(w.received, 'user_message')[0]).toMatchObject({ messageId: id, content: text('hello') });
  });

  it('rejects with the given JSON-RPC error and reports no user message', async () => {
    const agent = new Agent({
      info,
      onPrompt: (prompt) => prompt.reject(new RpcError(ErrorCodes.InvalidParams, 'Images are not supported')),
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    await expect(w.client.prompt(sessionId, text('x'))).rejects.toMatchObject({
      code: -32602,
      message: 'Images are not supported',
    });
    expect(updates(w.received, 'user_message')).toHaveLength(0);
    const snapshot = w.client.store.snapshot(sessionId);
    expect(snapshot.messages.filter((m) => m.kind === 'user_message' && m.origin === 'agent')).toHaveLength(
      0,
    );
  });

  it('answers -32603 without details when the handler throws before settling, and inserts nothing', async () => {
    const agent = new Agent({
      info,
      onPrompt: () => {
        throw new Error('secret internal detail');
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const error = await w.client.prompt(sessionId, text('x')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32603 });
    expect(String((error as Error).message)).not.toContain('secret');
    expect(updates(w.received, 'user_message')).toHaveLength(0);
  });

  it('refuses to settle a prompt twice', async () => {
    const { agent, held } = holdingAgent();
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const receipt = w.client.prompt(sessionId, text('x'));
    await waitFor(() => held.length === 1);
    await held[0]!.insert();
    await receipt;
    await expect(held[0]!.insert()).rejects.toThrow(/already inserted/);
    expect(() => held[0]!.reject({ code: -32603, message: 'late' })).toThrow(/already inserted/);
  });

  it('answers -32002 for an unknown session', async () => {
    const { agent } = holdingAgent();
    const w = wire(agent);
    await expect(w.client.prompt('sess_missing', text('x'))).rejects.toMatchObject({ code: -32002 });
  });

  it('gives identical prompts distinct IDs', async () => {
    const agent = new Agent({ info, onPrompt: (prompt) => void prompt.insert() });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const ids = await Promise.all([
      w.client.prompt(sessionId, text('same')),
      w.client.prompt(sessionId, text('same')),
    ]);
    expect(new Set(ids).size).toBe(2);
    const users = w.client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'user_message');
    expect(users.map((m) => m.messageId).sort()).toEqual([...ids].sort());
  });

  it('inserts under an ID reserved before insertion, and only then answers', async () => {
    const reserved: string[] = [];
    const held: PendingPrompt[] = [];
    const agent = new Agent({
      info,
      onPrompt: async (prompt, { session }) => {
        reserved.push(await session.reserveMessageId());
        held.push(prompt);
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const receipt = w.client.prompt(sessionId, text('x'));
    await waitFor(() => held.length === 1);
    await tick(20);
    expect(
      w.received.some((r) => r.type === 'response' && (r.result as { messageId?: string })?.messageId),
    ).toBe(false);
    await held[0]!.insert({ messageId: reserved[0]! });
    await expect(receipt).resolves.toBe(reserved[0]);
  });

  it('refuses to insert under an ID already used in the session', async () => {
    const held: PendingPrompt[] = [];
    const agent = new Agent({ info, onPrompt: (prompt) => void held.push(prompt) });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const first = w.client.prompt(sessionId, text('a'));
    const second = w.client.prompt(sessionId, text('b'));
    await waitFor(() => held.length === 2);
    await held[0]!.insert({ messageId: 'mess_1' });
    await first;
    await expect(held[1]!.insert({ messageId: 'mess_1' })).rejects.toThrow(/already used/);
    await expect(second).rejects.toMatchObject({ code: -32603 });
  });

  it('rejects a held prompt with -32800 when the client cancels the request before insertion', async () => {
    const { agent, held } = holdingAgent();
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const controller = new AbortController();
    const response = w.connection.sendRequest(
      'session/prompt',
      { sessionId, prompt: text('x') },
      { signal: controller.signal },
    );
    await waitFor(() => held.length === 1);
    controller.abort();
    await expect(response).rejects.toMatchObject({ code: -32800 });
    expect(held[0]!.state).toBe('rejected');
    expect(updates(w.received, 'user_message')).toHaveLength(0);
  });
});
