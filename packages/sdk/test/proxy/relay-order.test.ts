/**
 * A proxy keeps the order of what its successor sends: a response and a notification that arrive
 * together (one read) leave toward the client in the same order. The conductor here is played by
 * hand over raw ndjson, so both lines can be written in one chunk.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type ProxyOptions, serveProxy } from '../../src/proxy/index.js';
import { streamTransport } from '../../src/transports/index.js';
import { rawNdjsonPeer } from './raw-ndjson-peer.js';

function rawConductor(options: ProxyOptions = {}) {
  const toProxy = new PassThrough();
  const fromProxy = new PassThrough();
  serveProxy(streamTransport(toProxy, fromProxy), options);
  return rawNdjsonPeer(fromProxy, toProxy);
}

/** Initializes the proxy, sends a prompt through it, and has the successor answer it with its idle in one chunk. */
async function promptAnsweredWithIdle(c: ReturnType<typeof rawConductor>): Promise<string[]> {
  c.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'proxy/initialize',
    params: { protocolVersion: 2, clientCapabilities: {}, info: { name: 'c', version: '1' } },
  });
  await c.until(() => c.lines.some((l) => l.method === 'proxy/successor'));
  const init = c.lines.find((l) => l.method === 'proxy/successor')!;
  c.send({
    jsonrpc: '2.0',
    id: init.id,
    result: { protocolVersion: 2, agentCapabilities: {}, info: { name: 'a', version: '1' } },
  });
  await c.until(() => c.lines.some((l) => l.id === 1 && 'result' in l));
  c.send({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
  await c.until(() => c.lines.filter((l) => l.method === 'proxy/successor').length === 2);
  const forwarded = c.lines.filter((l) => l.method === 'proxy/successor')[1]!;
  const before = c.lines.length;
  // The agent's answer and its idle, read by the proxy in one chunk.
  c.send(
    { jsonrpc: '2.0', id: forwarded.id, result: { messageId: 'm1' } },
    {
      jsonrpc: '2.0',
      method: 'proxy/successor',
      params: {
        method: 'session/update',
        params: {
          sessionId: 's',
          update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
        },
      },
    },
  );
  await c.until(() => c.lines.length >= before + 2);
  return c.lines.slice(before).map((l) => (l.id === 2 ? 'response' : String(l.method)));
}

describe('a proxy relaying its successor', () => {
  it('answers a forwarded request before forwarding a notification that arrived right behind its response', async () => {
    expect(await promptAnsweredWithIdle(rawConductor())).toEqual(['response', 'session/update']);
  });

  it('lets that notification pass, after a bounded hold, when an interceptor works long on the answer', async () => {
    const order = await promptAnsweredWithIdle(
      rawConductor({
        toAgent: {
          'session/prompt': async (params, forward) => {
            const result = await forward(params);
            await new Promise((resolve) => setTimeout(resolve, 4_000));
            return result;
          },
        },
      }),
    );
    // The hold is HOLD_MS (1 s): the idle goes first instead of waiting the 4 s for the answer.
    expect(order).toEqual(['session/update', 'response']);
  });
});
