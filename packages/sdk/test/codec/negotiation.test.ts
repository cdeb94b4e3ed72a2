import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { type CodecSession, negotiateAgentVersion, type WireCodec } from '../../src/codec/index.js';
import { Connection } from '../../src/rpc/index.js';
import { schemaValidator } from '../../src/codec/index.js';
import { streamTransport } from '../../src/transports/index.js';

type Line = {
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/**
 * A stand-in for an older protocol, "version 1" here: its initialize says `clientName` instead of
 * `info`, and its answers say `version` instead of `protocolVersion`. Everything else passes.
 */
const oldCodec: WireCodec & { opened: number } = {
  protocolVersion: 1,
  opened: 0,
  agent(channel): CodecSession {
    oldCodec.opened += 1;
    const initializeIds = new Set<unknown>();
    return {
      fromPeer(message) {
        const m = message as { id?: unknown; method?: string; params?: { clientName?: string } };
        if (m.method === 'initialize') {
          initializeIds.add(m.id);
          channel.deliver({
            ...m,
            params: { protocolVersion: 2, info: { name: m.params?.clientName ?? '?', version: '1' } },
          });
          return;
        }
        channel.deliver(message);
      },
      fromCore(message) {
        const m = message as { id?: unknown; result?: { info?: unknown } };
        if (initializeIds.delete(m.id) && m.result) {
          return channel.write({ jsonrpc: '2.0', id: m.id, result: { version: 1, agent: m.result.info } });
        }
        return channel.write(message);
      },
    };
  },
};

/** Serves a fresh agent on 127.0.0.1 behind {@link negotiateAgentVersion}; returns the port. */
async function listen(codecs: WireCodec[], chosen: number[]): Promise<number> {
  const agent = new Agent({
    info: { name: 'negotiating', version: '1.0.0' },
    onPrompt: (p) => void p.insert(),
  });
  const server = createServer((socket) => {
    sockets.push(socket);
    const transport = negotiateAgentVersion(streamTransport(socket, socket), {
      codecs,
      onNegotiated: (version) => chosen.push(version),
    });
    agent.serve(new Connection(transport, { validator: schemaValidator }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function rawClient(port: number) {
  const socket = createConnection({ host: '127.0.0.1', port });
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const answers = new Map<unknown, (line: Line) => void>();
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => {
    buffered += text;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) {
      const line = JSON.parse(part) as Line;
      answers.get(line.id)?.(line);
    }
  });
  let nextId = 1;
  return (method: string, params: unknown): Promise<Line> => {
    const id = nextId++;
    const answered = new Promise<Line>((resolve) => answers.set(id, resolve));
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answered;
  };
}

const info = { name: 'negotiation-test', version: '0.0.0' };

describe('version negotiation at initialize (negotiateAgentVersion)', () => {
  it('serves v2 to a client asking for 2, and its latest (2) to one asking for a newer version', async () => {
    const chosen: number[] = [];
    const port = await listen([oldCodec], chosen);
    const v2 = await rawClient(port);
    expect((await v2('initialize', { protocolVersion: 2, info })).result).toMatchObject({
      protocolVersion: 2,
    });
    expect((await v2('session/new', { cwd: '/tmp' })).result).toHaveProperty('sessionId');
    const v7 = await rawClient(port);
    expect((await v7('initialize', { protocolVersion: 7, info })).result).toMatchObject({
      protocolVersion: 2,
    });
    expect(chosen).toEqual([2, 2]);
  });

  it('translates a connection whose client asks for a version a codec speaks, and only that connection', async () => {
    const chosen: number[] = [];
    const opened = oldCodec.opened;
    const port = await listen([oldCodec], chosen);
    const old = await rawClient(port);
    const v2 = await rawClient(port);
    const [oldInit, v2Init] = await Promise.all([
      old('initialize', { protocolVersion: 1, clientName: 'legacy' }),
      v2('initialize', { protocolVersion: 2, info }),
    ]);
    expect(oldInit.result).toEqual({ version: 1, agent: { name: 'negotiating', version: '1.0.0' } });
    expect(v2Init.result).toMatchObject({ protocolVersion: 2, info: { name: 'negotiating' } });
    expect(oldCodec.opened - opened).toBe(1);
    expect(chosen.sort()).toEqual([1, 2]);
    // After negotiation the old connection's other messages go through the codec to the v2 agent.
    expect((await old('session/new', { cwd: '/tmp' })).result).toHaveProperty('sessionId');
  });

  it('answers a version below everything served with -32022 and its data, and lets the client try again', async () => {
    const chosen: number[] = [];
    const port = await listen([oldCodec], chosen);
    const client = await rawClient(port);
    const refused = await client('initialize', { protocolVersion: 0, info });
    expect(refused.error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version 0: this agent speaks 1 and 2',
      data: { requested: 0, supported: [1, 2] },
    });
    expect(chosen).toEqual([]);
    expect((await client('initialize', { protocolVersion: 2, info })).result).toMatchObject({
      protocolVersion: 2,
    });
  });

  it('without a v1 codec, a v1 client gets -32022 naming 2 as the only version', async () => {
    const port = await listen([], []);
    const client = await rawClient(port);
    const refused = await client('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(refused.error).toMatchObject({ code: -32022, data: { requested: 1, supported: [2] } });
  });

  it('leaves an initialize without a usable version to the schema: -32602 naming /params/protocolVersion', async () => {
    const port = await listen([oldCodec], []);
    const client = await rawClient(port);
    const refused = await client('initialize', { protocolVersion: 'two', info });
    expect(refused.error).toMatchObject({ code: -32602, data: { pointer: '/params/protocolVersion' } });
    expect((await client('initialize', { protocolVersion: 2, info })).result).toMatchObject({
      protocolVersion: 2,
    });
  });
});

/** A raw client that writes whole lines and reads every line the agent writes, parsed. */
async function rawLines(port: number) {
  const socket = createConnection({ host: '127.0.0.1', port });
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const lines: unknown[] = [];
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => {
    buffered += text;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part));
  });
  return {
    lines,
    send: (value: unknown) => socket.write(`${JSON.stringify(value)}\n`),
    /** Resolves with the `count`-th line the agent wrote. */
    line: async (count: number): Promise<unknown> => {
      await expect.poll(() => lines.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(count);
      return lines[count - 1];
    },
  };
}

const request = (id: number, method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, params });

describe('a batch holding the first initialize', () => {
  it('negotiates v2 when its initialize asks for 2, and is answered as one array', async () => {
    const chosen: number[] = [];
    const port = await listen([oldCodec], chosen);
    const client = await rawLines(port);
    client.send([
      request(1, 'initialize', { protocolVersion: 2, info }),
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess_none' } },
    ]);
    const answer = (await client.line(1)) as Line[];
    expect(Array.isArray(answer)).toBe(true);
    expect(answer).toHaveLength(1);
    expect(answer[0]).toMatchObject({ id: 1, result: { protocolVersion: 2, info: { name: 'negotiating' } } });
    expect(chosen).toEqual([2]);
    client.send(request(2, 'session/new', { cwd: '/tmp' }));
    expect(await client.line(2)).toMatchObject({ id: 2, result: { sessionId: expect.any(String) } });
  });

  it('refuses the whole batch in one array when its initialize asks for 1 (v1 has no batches), and stays undecided', async () => {
    const chosen: number[] = [];
    const opened = oldCodec.opened;
    const port = await listen([oldCodec], chosen);
    const client = await rawLines(port);
    client.send([
      request(1, 'initialize', { protocolVersion: 1, clientName: 'legacy' }),
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess_none' } },
      request(2, 'session/new', { cwd: '/tmp' }),
    ]);
    const answer = (await client.line(1)) as Line[];
    expect(answer).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32600,
          message:
            'Invalid request: initialize for protocol version 1 cannot be batched (version 1 has no batches); send it as a single message',
          data: { pointer: '/0', expected: 'initialize as a single message, not in a batch' },
        },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32600,
          message:
            'Invalid request: not processed, because the initialize at /0 of this batch asks for protocol version 1, which has no batches',
          data: { pointer: '/2', expected: 'a single message after a single initialize' },
        },
      },
    ]);
    expect(chosen).toEqual([]);
    expect(oldCodec.opened).toBe(opened);
    // The same initialize sent alone negotiates version 1.
    client.send(request(3, 'initialize', { protocolVersion: 1, clientName: 'legacy' }));
    expect(await client.line(2)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: { version: 1, agent: { name: 'negotiating', version: '1.0.0' } },
    });
    expect(chosen).toEqual([1]);
  });

  it('answers a batched initialize for a version nothing serves with -32022 and its data inside the array', async () => {
    const chosen: number[] = [];
    const port = await listen([], chosen);
    const client = await rawLines(port);
    client.send([request(7, 'initialize', { protocolVersion: 1, clientCapabilities: {} })]);
    expect(await client.line(1)).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32022,
          message: 'Unsupported protocol version 1: this agent speaks 2',
          data: { requested: 1, supported: [2] },
        },
      },
    ]);
    client.send(request(8, 'initialize', { protocolVersion: 2, info }));
    expect(await client.line(2)).toMatchObject({ id: 8, result: { protocolVersion: 2 } });
    expect(chosen).toEqual([2]);
  });

  it('leaves a batch whose initialize has no usable version to the v2 connection: -32602 in the array', async () => {
    const chosen: number[] = [];
    const port = await listen([oldCodec], chosen);
    const client = await rawLines(port);
    client.send([request(1, 'initialize', { protocolVersion: 'two', info })]);
    expect(await client.line(1)).toEqual([
      expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32602 }) }),
    ]);
    expect(chosen).toEqual([]);
  });
});
