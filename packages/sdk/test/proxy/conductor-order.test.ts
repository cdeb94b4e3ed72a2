/**
 * A conductor keeps the order of what each side sends: an answer and a notification that the agent
 * writes together (one read) reach the client in that order, and the same towards the agent. Both
 * the client and the agent are played by hand over raw ndjson, so two lines can share one chunk.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveConductor } from '../../src/proxy/index.js';
import { streamTransport } from '../../src/transports/index.js';
import { rawNdjsonPeer } from './raw-ndjson-peer.js';

/** A conductor with no proxy between a raw client and a raw agent, initialized. */
async function rawChain() {
  const [clientIn, clientOut, agentIn, agentOut] = [0, 1, 2, 3].map(() => new PassThrough());
  serveConductor({
    client: streamTransport(clientOut!, clientIn!),
    proxies: [],
    agent: { name: 'agent', transport: streamTransport(agentOut!, agentIn!) },
  });
  const client = rawNdjsonPeer(clientIn!, clientOut!);
  const agent = rawNdjsonPeer(agentIn!, agentOut!);
  client.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: 2, clientCapabilities: {}, info: { name: 'c', version: '1' } },
  });
  await agent.until(() => agent.lines.some((l) => l.method === 'initialize'));
  const init = agent.lines.find((l) => l.method === 'initialize')!;
  agent.send({
    jsonrpc: '2.0',
    id: init.id,
    result: { protocolVersion: 2, agentCapabilities: {}, info: { name: 'a', version: '1' } },
  });
  await client.until(() => client.lines.some((l) => l.id === 1 && 'result' in l));
  return { client, agent };
}

const idle = {
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: 's',
    update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
  },
};

describe('a conductor relaying between its client and its agent', () => {
  it('writes the answer to a client request before a notification the agent wrote right behind it', async () => {
    const { client, agent } = await rawChain();
    client.send({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    await agent.until(() => agent.lines.some((l) => l.method === 'session/prompt'));
    const forwarded = agent.lines.find((l) => l.method === 'session/prompt')!;
    const before = client.lines.length;
    agent.send({ jsonrpc: '2.0', id: forwarded.id, result: { messageId: 'm1' } }, idle);
    await client.until(() => client.lines.length >= before + 2);
    const order = client.lines.slice(before).map((l) => (l.id === 2 ? 'response' : String(l.method)));
    expect(order).toEqual(['response', 'session/update']);
  });

  it('writes the answer to an agent request before a notification the client wrote right behind it', async () => {
    const { client, agent } = await rawChain();
    agent.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'session/request_permission',
      params: { sessionId: 's', toolCall: { toolCallId: 't' }, options: [] },
    });
    await client.until(() => client.lines.some((l) => l.method === 'session/request_permission'));
    const forwarded = client.lines.find((l) => l.method === 'session/request_permission')!;
    const before = agent.lines.length;
    client.send(
      { jsonrpc: '2.0', id: forwarded.id, result: { outcome: { outcome: 'cancelled' } } },
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } },
    );
    await agent.until(() => agent.lines.length >= before + 2);
    const order = agent.lines.slice(before).map((l) => (l.id === 7 ? 'response' : String(l.method)));
    expect(order).toEqual(['response', 'session/cancel']);
  });
  it('writes a notification the agent wrote before a response before the answer built from that response', async () => {
    const { client, agent } = await rawChain();
    client.send({ jsonrpc: '2.0', id: 4, method: '_probe', params: {} });
    client.send({ jsonrpc: '2.0', id: 5, method: 'session/close', params: { sessionId: 's' } });
    await agent.until(() => agent.lines.some((l) => l.method === 'session/close'));
    const probe = agent.lines.find((l) => l.method === '_probe')!;
    const close = agent.lines.find((l) => l.method === 'session/close')!;
    const before = client.lines.length;
    // The agent's answers and the idle between them, read by the conductor in one chunk.
    agent.send(
      { jsonrpc: '2.0', id: probe.id, error: { code: -32601, message: 'Method not found' } },
      { ...idle, params: { ...idle.params, update: { ...idle.params.update, stopReason: 'cancelled' } } },
      { jsonrpc: '2.0', id: close.id, result: {} },
    );
    await client.until(() => client.lines.length >= before + 3);
    const order = client.lines
      .slice(before)
      .map((l) => (l.method === undefined ? `answer ${l.id}` : String(l.method)));
    expect(order).toEqual(['answer 4', 'session/update', 'answer 5']);
  });

  it('answers a batch whose requests the agent answered with a notification between them', async () => {
    const { client, agent } = await rawChain();
    client.send([
      { jsonrpc: '2.0', id: 8, method: 'session/list', params: {} },
      { jsonrpc: '2.0', id: 9, method: 'session/list', params: {} },
    ]);
    await agent.until(() => agent.lines.filter((l) => l.method === 'session/list').length === 2);
    const [first, second] = agent.lines.filter((l) => l.method === 'session/list');
    const before = client.lines.length;
    agent.send({ jsonrpc: '2.0', id: first!.id, result: { sessions: [] } }, idle, {
      jsonrpc: '2.0',
      id: second!.id,
      result: { sessions: [] },
    });
    await client.until(() => client.lines.length >= before + 3);
    const got = client.lines.slice(before).map((l) => (l.inBatch ? `batch ${l.id}` : String(l.method)));
    expect(got).toEqual(['session/update', 'batch 8', 'batch 9']);
  });
});
