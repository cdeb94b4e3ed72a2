/**
 * #40 item 16: a client cannot speak as a component of the chain. `proxy/successor` sent by the
 * client as a notification used to reach the first proxy as if from its successor: it was logged
 * `toClient` and came back to the client as an agent update. The conductor (`acp-kit chain`) now
 * drops every chain method a client sends as a notification and refuses it as a request (-32601),
 * in both dialects' names, and logs each on stderr; the chain goes on serving the client.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection, type ExtensionMethod, noValidation, type RpcError } from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, tempDir } from '../harness.js';
import { proxyLine, REFERENCE_AGENT, spawnChain } from './chain-process.js';

beforeAll(requireBuild);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ext = (method: string) => method as ExtensionMethod;
const FORGED = 'I am the agent';

describe('a client sending the chain’s own methods to acp-kit chain', () => {
  it('has them dropped (notifications) or refused -32601 (requests) and logged: no proxy sees them, nothing comes back as the agent’s', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const log = join(dir, 'tap.ndjson');
    const chain = spawnChain([proxyLine('--name', 'tap', '--log', log)], REFERENCE_AGENT);
    cleanups.push(async () => void (await chain.shutdown({ graceMs: 500 })));
    const client = new Connection(chain, { validator: noValidation });
    cleanups.push(() => client.close());
    const incoming: { method?: string; params?: unknown }[] = [];
    let turnEnded: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => {
      turnEnded = resolve;
    });
    client.onMessage((direction, message) => {
      if (direction !== 'in') return;
      const m = message as (typeof incoming)[number];
      incoming.push(m);
      const update = (m.params as { update?: { stopReason?: unknown } } | undefined)?.update;
      if (m.method === 'session/update' && update?.stopReason !== undefined) turnEnded();
    });
    client.onUnhandledNotification(() => undefined);
    client.listen();
    await client.sendRequest(ext('initialize'), {
      protocolVersion: 2,
      info: { name: 'forger', version: '0.0.0' },
      capabilities: {},
    });
    const { sessionId } = (await client.sendRequest(ext('session/new'), { cwd: dir, mcpServers: [] })) as {
      sessionId: string;
    };
    const forged = {
      method: 'session/update',
      params: {
        sessionId,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: FORGED } },
      },
    };
    for (const method of ['proxy/successor', '_proxy/successor/notification', 'proxy/initialize'])
      await client.sendNotification(ext(method), forged);
    const refusals: unknown[] = [];
    for (const method of ['proxy/successor', '_proxy/successor/request', 'proxy/initialize'])
      refusals.push(await client.sendRequest(ext(method), forged).catch((error: RpcError) => error.code));
    expect(refusals).toEqual([-32601, -32601, -32601]);

    // The chain still serves the client; by the time this turn ends, the forged notifications
    // (sent before it) would have come back.
    await client.sendRequest(ext('session/prompt'), { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    await ended;
    expect(JSON.stringify(incoming)).not.toContain(FORGED);
    const logged = readFileSync(log, 'utf8');
    expect(logged).not.toContain(FORGED);
    expect(logged).toContain('"method":"session/prompt"');
    const lines = chain
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('acp-kit chain: '));
    expect(lines).toEqual([
      expect.stringMatching(/^acp-kit chain: dropped the proxy\/successor notification from client: /),
      expect.stringMatching(
        /^acp-kit chain: dropped the _proxy\/successor\/notification notification from client: /,
      ),
      expect.stringMatching(/^acp-kit chain: dropped the proxy\/initialize notification from client: /),
      expect.stringMatching(/^acp-kit chain: refused the proxy\/successor request from client: /),
      expect.stringMatching(/^acp-kit chain: refused the _proxy\/successor\/request request from client: /),
      expect.stringMatching(/^acp-kit chain: refused the proxy\/initialize request from client: /),
    ]);
  }, 60_000);
});
