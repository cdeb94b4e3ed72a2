/**
 * Typed extension methods: a `_`-method declared once with JSON Schema checks (compiled by Ajv,
 * mapped to issues as the generated validators are) is served and called on either side of a
 * connection, its params refused -32602 and its results -32603 at their pointers. Over a real TCP
 * socket on 127.0.0.1, an Agent on one end and a Client on the other.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { Connection, extensionNotification, extensionRequest, RpcError } from '../../src/rpc/index.js';
import { ajvCheck } from '../../src/rpc/ajv-check.js';
import { streamTransport } from '../../src/transports/index.js';

const ajv = new Ajv2020({ allErrors: false });

interface SearchParams {
  query: string;
  limit?: number;
}
interface SearchResult {
  hits: string[];
}
const search = extensionRequest<SearchParams, SearchResult>('_acme/search', {
  params: ajvCheck(
    ajv.compile({
      type: 'object',
      properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1 } },
      required: ['query'],
    }),
  ),
  result: ajvCheck(
    ajv.compile({
      type: 'object',
      properties: { hits: { type: 'array', items: { type: 'string' } } },
      required: ['hits'],
    }),
  ),
});
const progress = extensionNotification<{ percent: number }>('_acme/progress', {
  params: ajvCheck(
    ajv.compile({
      type: 'object',
      properties: { percent: { type: 'number', minimum: 0, maximum: 100 } },
      required: ['percent'],
    }),
  ),
});

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

/** An agent connection and a client connection joined by a TCP socket on 127.0.0.1. */
async function socketPair(): Promise<{ agentSide: Connection; clientSide: Connection; client: Client }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const port = (server.address() as { port: number }).port;
  const outgoing = connect(port, '127.0.0.1');
  const incoming = await accepted;
  cleanup.push(() => {
    outgoing.destroy();
    incoming.destroy();
    server.close();
  });
  const agentSide = new Connection(streamTransport(incoming, incoming));
  const clientSide = new Connection(streamTransport(outgoing, outgoing));
  const agent = new Agent({
    info: { name: 'ext-agent', version: '0.0.0' },
    onPrompt: async (prompt) => void (await prompt.insert()),
  });
  // Extension handlers are registered on the connection before the agent serves it.
  search.serve(agentSide, ({ query, limit }) =>
    query === 'broken'
      ? ({ hits: [42] } as unknown as SearchResult)
      : { hits: [`${query}:1`, `${query}:2`].slice(0, limit ?? 2) },
  );
  agent.serve(agentSide as never);
  const client = new Client(clientSide as never, { info: { name: 'ext-client', version: '0.0.0' } });
  await client.initialize();
  return { agentSide, clientSide, client };
}

async function refusal(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('typed extension requests', () => {
  it('answers valid params with the typed result', async () => {
    const { clientSide } = await socketPair();
    const result = await search.send(clientSide, { query: 'todo', limit: 1 });
    expect(result.hits).toEqual(['todo:1']);
  });

  it('refuses params the schema rejects -32602 at their pointer, before the handler runs', async () => {
    const { clientSide } = await socketPair();
    // Sent raw, past the sender's own check: the serving side refuses it.
    const error = await refusal(clientSide.sendRequest('_acme/search', { query: 'x', limit: 0 }));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ pointer: '/params/limit', expected: expect.stringContaining('1') });
    const missing = await refusal(clientSide.sendRequest('_acme/search', {}));
    expect(missing).toMatchObject({ code: -32602, data: { pointer: '/params/query' } });
    // The sender's check refuses the same params without sending them.
    const local = await refusal(search.send(clientSide, { query: 7 as unknown as string }));
    expect(local).toMatchObject({ code: -32602, data: { pointer: '/params/query' } });
  });

  it('refuses a wrong result -32603 at its pointer, on the serving and on the calling side', async () => {
    const { agentSide, clientSide } = await socketPair();
    // The handler's own wrong result is not sent: the caller gets -32603 at its pointer.
    const served = await refusal(search.send(clientSide, { query: 'broken' }));
    expect(served).toMatchObject({ code: -32603, data: { pointer: '/result/hits/0' } });
    // A peer answering without checks: the caller's result check refuses what it sent.
    agentSide.onRequest('_acme/unchecked', () => ({ hits: 'none' }));
    const unchecked = extensionRequest<SearchParams, SearchResult>('_acme/unchecked', {
      params: () => undefined,
      result: ajvCheck(ajv.compile({ type: 'object', properties: { hits: { type: 'array' } } })),
    });
    const called = await refusal(unchecked.send(clientSide, { query: 'x' }));
    expect(called).toMatchObject({ code: -32603, data: { pointer: '/result/hits' } });
  });
});

describe('typed extension notifications', () => {
  it('hands valid params to the handler and drops invalid ones, reporting their pointer, both ways', async () => {
    const { agentSide, clientSide } = await socketPair();
    const atAgent: number[] = [];
    const atClient: number[] = [];
    const invalid: string[] = [];
    const arrived = (list: number[], n: number) =>
      new Promise<void>((resolve) => {
        const poll = () => (list.length >= n ? resolve() : setImmediate(poll));
        poll();
      });
    progress.on(agentSide, ({ percent }) => void atAgent.push(percent), {
      onInvalid: (error) => invalid.push(`${error.code} ${error.data?.pointer}`),
    });
    progress.on(clientSide, ({ percent }) => void atClient.push(percent));
    await clientSide.sendNotification('_acme/progress', { percent: 'half' });
    await progress.send(clientSide, { percent: 50 });
    await progress.send(agentSide, { percent: 75 });
    await Promise.all([arrived(atAgent, 1), arrived(atClient, 1)]);
    expect(atAgent).toEqual([50]);
    expect(atClient).toEqual([75]);
    expect(invalid).toEqual(['-32602 /params/percent']);
    await expect(progress.send(clientSide, { percent: 101 })).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/percent' },
    });
  });
});

/** Compile-time only: the declared types reach both ends. */
export function typesAreInferred(connection: Connection): void {
  // @ts-expect-error query must be a string
  void search.send(connection, { query: 1 });
  void search.send(connection, { query: 'q' }).then((result) => result.hits.map((h) => h.length));
  // @ts-expect-error the handler must return the declared result
  search.serve(connection, () => ({ hits: 3 }));
  // @ts-expect-error percent is a number
  void progress.send(connection, { percent: '1' });
}
