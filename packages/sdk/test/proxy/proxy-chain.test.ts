import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '@acp-kit/schema';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { schemaValidator } from '../../src/codec/index.js';
import {
  type ChainRefusal,
  type ProxyOptions,
  serveConductor,
  serveProxy,
  type ToAgentInterceptors,
  type ToClientInterceptors,
} from '../../src/proxy/index.js';
import { Connection, type ExtensionMethod, noValidation, RpcError } from '../../src/rpc/index.js';
import type { Transport } from '../../src/rpc/transport.js';
import { createInProcessPair } from '../../src/transports/index.js';

/** An Agent that inserts each prompt and ends the turn, serving one in-process transport. */
function agentTransport(seen: string[]) {
  const agent = new Agent({
    info: { name: 'inner-agent', version: '1.0.0' },
    onPrompt: async (prompt, { session }) => {
      seen.push(JSON.stringify(prompt.content));
      await prompt.insert();
      await session.running();
      await session.idle('end_turn');
    },
  });
  const [agentSide, conductorSide] = createInProcessPair();
  agent.serve(new Connection(agentSide, { validator: schemaValidator }));
  return conductorSide;
}

/** client ⇄ serveConductor ⇄ one serveProxy(options) ⇄ the Agent, all in process over ndjson pipes. */
async function chainOf(options: ProxyOptions, seen: string[] = []) {
  const [proxySide, proxyConductorSide] = createInProcessPair();
  const proxy = serveProxy(proxySide, options);
  const [clientSide, conductorClientSide] = createInProcessPair();
  const conductor = serveConductor({
    client: conductorClientSide,
    proxies: [{ transport: proxyConductorSide, name: 'proxy 1' }],
    agent: { transport: agentTransport(seen), name: 'agent' },
  });
  const connection = new Connection(clientSide, { validator: schemaValidator });
  const incoming: { method?: string; params?: { _meta?: Record<string, unknown> } }[] = [];
  connection.onMessage((direction, message) => {
    if (direction === 'in') incoming.push(message as (typeof incoming)[number]);
  });
  const client = new Client(connection, { info: { name: 'c', version: '1' } });
  return { client, conductor, incoming, seen, proxy };
}

type Zod = { safeParse(value: unknown): { success: boolean; error?: unknown } };

/** The official SDK's zod schemas of the v2 unstable surface (not exported: loaded from its file). */
async function officialZod(): Promise<Record<string, Zod>> {
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/experimental/v2/unstable');
  return (await import(pathToFileURL(join(dirname(entry), 'schema', 'zod.gen.js')).href)) as Record<
    string,
    Zod
  >;
}

describe('serveProxy behind serveConductor', () => {
  it("types interceptors by what each side receives, leaving out the chain's own methods", () => {
    type Chain = 'proxy/initialize' | 'proxy/successor';
    expectTypeOf<keyof ToAgentInterceptors>().toEqualTypeOf<
      Exclude<keyof AgentRequestMap | keyof AgentNotificationMap, Chain>
    >();
    expectTypeOf<keyof ToClientInterceptors>().toEqualTypeOf<
      Exclude<keyof ClientRequestMap | keyof ClientNotificationMap, Chain>
    >();
    // mcp/message is a request towards the client and a notification towards the agent: one
    // interceptor type each way, so a plain pass-through type-checks on both.
    const toClient: ToClientInterceptors = { 'mcp/message': (params, forward) => forward(params) };
    const toAgent: ToAgentInterceptors = { 'mcp/message': (params, forward) => forward(params) };
    expect(Object.keys({ ...toClient, ...toAgent })).toEqual(['mcp/message']);
  });

  it("speaks what the official SDK's unstable zod schemas accept: every proxy/initialize and proxy/successor, both ways", async () => {
    const zod = await officialZod();
    const { client, proxy } = await chainOf({});
    const methods = new Map<unknown, string>();
    const checked: string[] = [];
    const rejected: string[] = [];
    const check = (name: string, value: unknown): void => {
      const schema = zod[name];
      if (schema === undefined) throw new Error(`no official ${name}`);
      checked.push(name);
      if (!schema.safeParse(value).success) rejected.push(`${name}: ${JSON.stringify(value)}`);
    };
    proxy.connection.onMessage((direction, message) => {
      const m = message as { id?: unknown; method?: string; params?: unknown; result?: unknown };
      if (m.method === 'proxy/initialize') check('zInitializeProxyRequest', m.params);
      else if (m.method === 'proxy/successor')
        check(m.id === undefined ? 'zProxySuccessorNotification' : 'zProxySuccessorRequest', m.params);
      if (m.method !== undefined && m.id !== undefined) methods.set(`${direction}:${String(m.id)}`, m.method);
      // The proxy's answer to proxy/initialize.
      const answered = methods.get(`${direction === 'out' ? 'in' : 'out'}:${String(m.id)}`);
      if (m.method === undefined && answered === 'proxy/initialize')
        check('zInitializeProxyResponse', m.result);
    });
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'hi' }]);
    client.close();
    expect(rejected).toEqual([]);
    expect(new Set(checked)).toEqual(
      new Set([
        'zInitializeProxyRequest',
        'zProxySuccessorRequest',
        'zProxySuccessorNotification',
        'zInitializeProxyResponse',
      ]),
    );
  });

  it('runs interceptors both ways: a prompt changed on its way to the agent, every update marked on its way back', async () => {
    const { client, incoming, seen } = await chainOf({
      toAgent: {
        'session/prompt': (params, forward) =>
          forward({ ...params, prompt: [...params.prompt, { type: 'text', text: 'from the proxy' }] }),
      },
      toClient: {
        'session/update': (params, forward) =>
          forward({ ...params, _meta: { ...params._meta, via: 'proxy 1' } }),
      },
    });
    expect(await client.initialize()).toMatchObject({ protocolVersion: 2, info: { name: 'inner-agent' } });
    const sessionId = await client.newSession('/tmp');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: 'hi' }]);
    expect(end.stopReason).toBe('end_turn');
    expect(seen).toEqual([
      JSON.stringify([
        { type: 'text', text: 'hi' },
        { type: 'text', text: 'from the proxy' },
      ]),
    ]);
    const updates = incoming.filter((m) => m.method === 'session/update');
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((m) => m.params?._meta?.via === 'proxy 1')).toBe(true);
    client.close();
  });

  it('an interceptor may answer by itself: its RpcError reaches the client and the agent never sees the request', async () => {
    const forwarded: string[] = [];
    const { client } = await chainOf({
      toAgent: {
        'session/new': (params, forward) => {
          if (params.cwd === '/forbidden')
            throw new RpcError(-32602, 'this proxy opens no session in /forbidden', {
              pointer: '/params/cwd',
            });
          forwarded.push(params.cwd);
          return forward(params);
        },
      },
    });
    await client.initialize();
    const refused = await client.newSession('/forbidden').then(
      () => undefined,
      (error: unknown) => error as RpcError,
    );
    expect([refused?.code, refused?.message, refused?.data]).toEqual([
      -32602,
      'this proxy opens no session in /forbidden',
      { pointer: '/params/cwd' },
    ]);
    expect(typeof (await client.newSession('/tmp'))).toBe('string');
    expect(forwarded).toEqual(['/tmp']);
    client.close();
  });

  it('shapes the initialize answer, and refuses -32603 an answer that changes protocolVersion', async () => {
    const shaped = await chainOf({
      initialize: (result) => ({ ...result, info: { ...result.info, title: 'via proxy' } }),
    });
    expect(await shaped.client.initialize()).toMatchObject({
      info: { name: 'inner-agent', title: 'via proxy' },
    });
    shaped.client.close();
    const changed = await chainOf({ initialize: (result) => ({ ...result, protocolVersion: 3 }) });
    const refused = await changed.client.initialize().then(
      () => undefined,
      (error: unknown) => error as RpcError,
    );
    expect(refused?.code).toBe(-32603);
    expect(refused?.message).toBe(
      "the proxy changed protocolVersion from 2 to 3; a proxy must keep its successor's",
    );
    changed.client.close();
  });
});

describe('serveConductor and the chain’s own methods (#40 item 16)', () => {
  it('forwards none from the client, inside an envelope or from the agent: requests get -32601, notifications are dropped, each is reported', async () => {
    const raw = (transport: Transport) => new Connection(transport, { validator: noValidation });
    const [clientSide, conductorClientSide] = createInProcessPair();
    const [proxySide, conductorProxySide] = createInProcessPair();
    const [agentSide, conductorAgentSide] = createInProcessPair();
    const refusals: ChainRefusal[] = [];
    const conductor = serveConductor({
      client: conductorClientSide,
      proxies: [{ transport: conductorProxySide, name: 'proxy 1' }],
      agent: { transport: conductorAgentSide, name: 'agent' },
      onRefused: (refusal) => refusals.push(refusal),
    });
    const client = raw(clientSide);
    const proxy = raw(proxySide);
    const agent = raw(agentSide);
    const reached: string[] = [];
    for (const [who, connection] of [
      ['client', client],
      ['proxy', proxy],
      ['agent', agent],
    ] as const) {
      connection.onUnhandledNotification((method, params) => {
        reached.push(`${who} ${method} ${JSON.stringify(params)}`);
      });
      connection.onUnhandledRequest((method) => {
        reached.push(`${who} ${method}`);
        return {};
      });
      connection.listen();
    }
    const ext = (method: string) => method as ExtensionMethod;
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'answered',
        (e: RpcError) => e.code,
      );
    const update = { method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'x' } } };

    await client.sendNotification(ext('proxy/successor'), update);
    const fromClient = await code(client.sendRequest(ext('_proxy/successor/request'), update));
    await proxy.sendNotification(ext('proxy/successor'), { method: 'proxy/successor', params: update });
    const inEnvelope = await code(proxy.sendRequest(ext('proxy/successor'), { method: 'proxy/initialize' }));
    await agent.sendNotification(ext('proxy/successor'), update);
    const fromAgent = await code(agent.sendRequest(ext('proxy/initialize'), {}));
    // What is not a chain method still crosses: a marker the client and the agent both see.
    await client.sendNotification(ext('_marker'), { n: 1 });
    await agent.sendNotification(ext('_marker'), { n: 2 });
    await expect.poll(() => reached.filter((line) => line.includes('_marker')).length).toBe(2);

    expect({ fromClient, inEnvelope, fromAgent }).toEqual({
      fromClient: -32601,
      inEnvelope: -32601,
      fromAgent: -32601,
    });
    expect(reached.filter((line) => !line.includes('_marker'))).toEqual([]);
    expect(refusals.map(({ from, method, kind }) => `${kind} ${method} from ${from}`)).toEqual([
      'notification proxy/successor from client',
      'request _proxy/successor/request from client',
      'notification proxy/successor from proxy 1',
      'request proxy/initialize from proxy 1',
      'notification proxy/successor from agent',
      'request proxy/initialize from agent',
    ]);
    conductor.close();
  });
});
