import {
  type AgentNotificationMap,
  type AgentRequestMap,
  type AuthMethod,
  type ClientNotificationMap,
  type ClientRequestMap,
  METHOD_CAPABILITIES,
  type MethodCapability,
} from '@acp-kit/schema';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { isAdvertised, MethodGate } from '../../src/agent/connection/method-gate.js';
import { Connection, RpcError } from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
const connections: Connection[] = [];

afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

type AgentSide = Connection<AgentRequestMap, AgentNotificationMap, ClientRequestMap, ClientNotificationMap>;

/**
 * A real TCP connection on 127.0.0.1: `serve` sets up the agent side of each accepted socket; the
 * returned function sends a request from the client side and resolves with its result or error.
 */
async function overSocket(serve: (connection: AgentSide) => void) {
  const server = createServer((socket) => {
    sockets.push(socket);
    const connection = new Connection(streamTransport(socket, socket)) as unknown as AgentSide;
    connections.push(connection as unknown as Connection);
    serve(connection);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const socket = createConnection({ host: '127.0.0.1', port: address.port });
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const client = new Connection(streamTransport(socket, socket));
  connections.push(client);
  client.listen();
  return async (method: string, params: unknown): Promise<{ result?: unknown; error?: RpcError }> => {
    try {
      return { result: await client.sendRequest(method as never, params as never) };
    } catch (error) {
      if (error instanceof RpcError) return { error };
      throw error;
    }
  };
}

const info = { name: 'gate-test', version: '0.0.0' };
const initializeParams = { protocolVersion: 2, info };
const sessionId = 'sess_1';

describe('method gate: an agent advertises exactly what it serves (#17 item 4)', () => {
  it('advertises a served gated method, drops a configured capability it does not serve, keeps the rest', async () => {
    const request = await overSocket((connection) => {
      const gate = new MethodGate(connection, {
        capabilities: { session: { prompt: { image: {} } }, auth: { _meta: { x: 1 } } },
      });
      gate.onRequest('initialize', () => ({ protocolVersion: 2, info, ...gate.advertisement() }));
      gate.onRequest('session/new', () => ({ sessionId }));
      gate.onRequest('session/delete', () => ({}));
      connection.listen();
    });
    const init = await request('initialize', initializeParams);
    expect(init.result).toEqual({
      protocolVersion: 2,
      info,
      capabilities: { session: { prompt: { image: {} }, delete: {} }, auth: { _meta: { x: 1 } } },
    });
    expect((await request('session/delete', { sessionId })).result).toEqual({});
  });

  it('removes a configured capability whose methods have no handler; the client gets -32601 naming the method', async () => {
    const request = await overSocket((connection) => {
      const gate = new MethodGate(connection, { capabilities: { session: { delete: {} } } });
      gate.onRequest('initialize', () => ({ protocolVersion: 2, info, ...gate.advertisement() }));
      gate.onRequest('session/new', () => ({ sessionId }));
      connection.listen();
    });
    const init = await request('initialize', initializeParams);
    expect(init.result).toEqual({ protocolVersion: 2, info, capabilities: { session: {} } });
    const refused = await request('session/delete', { sessionId });
    expect(refused.error?.code).toBe(-32601);
    expect(refused.error?.data).toEqual({ method: 'session/delete' });
  });

  it('refuses a served method whose capability cannot be advertised (auth/login without authMethods) with -32601 naming the capability', async () => {
    const request = await overSocket((connection) => {
      const gate = new MethodGate(connection, {});
      gate.onRequest('initialize', () => ({ protocolVersion: 2, info, ...gate.advertisement() }));
      gate.onRequest('auth/login', () => ({}));
      connection.listen();
    });
    const init = await request('initialize', initializeParams);
    expect(init.result).toEqual({ protocolVersion: 2, info, capabilities: {} });
    const refused = await request('auth/login', { methodId: 'password' });
    expect(refused.error?.code).toBe(-32601);
    expect(refused.error?.message).toContain('authMethods');
    expect(refused.error?.data).toEqual({
      method: 'auth/login',
      capability: { in: 'InitializeResponse', pointer: '/authMethods' },
    });
  });

  it('serves auth/login when authMethods are configured, and advertises them', async () => {
    const authMethods: AuthMethod[] = [{ type: 'agent', methodId: 'password', name: 'Password' }];
    const request = await overSocket((connection) => {
      const gate = new MethodGate(connection, { authMethods });
      gate.onRequest('initialize', () => ({ protocolVersion: 2, info, ...gate.advertisement() }));
      gate.onRequest('auth/login', () => ({}));
      gate.onRequest('auth/logout', () => ({}));
      connection.listen();
    });
    const init = await request('initialize', initializeParams);
    expect(init.result).toEqual({ protocolVersion: 2, info, capabilities: {}, authMethods });
    expect((await request('auth/login', { methodId: 'password' })).result).toEqual({});
  });

  it('refuses locally a request the client did not advertise the capability for', async () => {
    let gate: MethodGate | undefined;
    const request = await overSocket((connection) => {
      gate = new MethodGate(connection, {});
      gate.onRequest('initialize', () => ({ protocolVersion: 2, info, ...gate!.advertisement() }));
      connection.listen();
    });
    await request('initialize', { ...initializeParams, capabilities: { elicitation: { form: {} } } });
    expect(gate?.clientServes('session/request_permission')).toBe(true);
    expect(gate?.clientServes('elicitation/create')).toBe(true);
    expect(gate?.clientServes('elicitation/complete')).toBe(false);
    const refused = (() => {
      try {
        gate?.checkOutgoing('elicitation/complete');
        return undefined;
      } catch (error) {
        return error as RpcError;
      }
    })();
    expect(refused?.code).toBe(-32601);
    expect(refused?.data).toEqual({
      method: 'elicitation/complete',
      capability: { in: 'InitializeRequest', pointer: '/capabilities/elicitation/url' },
    });
  });

  it('reads advertisement by the table rule: present and not null, false or an empty array', () => {
    const cap = (path: string[]): MethodCapability => ({
      in: 'InitializeResponse',
      pointer: `/${path.join('/')}`,
      path,
      valueType: 'object',
      atInitialize: true,
      description: '',
    });
    expect(isAdvertised({ capabilities: { session: {} } }, cap(['capabilities', 'session']))).toBe(true);
    expect(isAdvertised({ capabilities: { session: null } }, cap(['capabilities', 'session']))).toBe(false);
    expect(isAdvertised({ capabilities: {} }, cap(['capabilities', 'session']))).toBe(false);
    expect(isAdvertised({ authMethods: [] }, cap(['authMethods']))).toBe(false);
    expect(isAdvertised({ authMethods: [{}] }, cap(['authMethods']))).toBe(true);
    expect(isAdvertised({ loadSession: false }, cap(['loadSession']))).toBe(false);
  });

  it("the SDK's Agent advertises exactly the initialize-time capabilities of the methods it answers", async () => {
    const agent = new Agent({ info, onPrompt: (prompt) => void prompt.insert() });
    const request = await overSocket((connection) => void agent.serve(connection));
    const init = await request('initialize', initializeParams);
    expect(init.error).toBeUndefined();
    // Probe every request a client sends: -32601 means not served; anything else (a result, or
    // -32602 for these empty params) means the agent has a handler for it.
    const served = new Set<string>();
    for (const row of Object.values(METHOD_CAPABILITIES)) {
      if (row.servedBy !== 'agent' || row.kind !== 'request' || row.method === 'initialize') continue;
      const answer = await request(row.method, {});
      if (answer.error?.code !== -32601) served.add(row.method);
    }
    expect(served.has('session/new')).toBe(true);
    const byPointer = new Map<string, { capability: MethodCapability; served: boolean }>();
    for (const row of Object.values(METHOD_CAPABILITIES)) {
      const capability = row.capability as MethodCapability | null;
      if (capability?.in !== 'InitializeResponse') continue;
      const entry = byPointer.get(capability.pointer) ?? { capability, served: false };
      entry.served ||= served.has(row.method);
      byPointer.set(capability.pointer, entry);
    }
    for (const { capability, served: isServed } of byPointer.values()) {
      expect([capability.pointer, isAdvertised(init.result, capability)]).toEqual([
        capability.pointer,
        isServed,
      ]);
    }
  });
});
