import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { Connection } from '../../src/rpc/index.js';
import { streamTransport } from '../../src/transports/index.js';

interface Line {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Serves `agent` on a TCP socket on 127.0.0.1 and returns the port. */
async function listen(agent: Agent): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    agent.serve(new Connection(streamTransport(socket, socket)));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A raw ndjson client over a real socket: sends a request and resolves with the answer to its id. */
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

const initializeParams = { protocolVersion: 2, info: { name: 'gate-test', version: '0.0.0' } };

describe('initialize gate (#13 item 9)', () => {
  it('refuses session/new before initialize with -32600 naming initialize, then serves it after', async () => {
    const agent = new Agent({
      info: { name: 'gate-agent', version: '0.0.0' },
      onPrompt: (prompt) => void prompt.insert(),
    });
    const request = await rawClient(await listen(agent));

    const early = await request('session/new', { cwd: '/work', mcpServers: [] });
    expect(early.result).toBeUndefined();
    expect(early.error?.code).toBe(-32600);
    expect(early.error?.message).toMatch(/^initialize first: session\/new/);
    expect(early.error?.data).toEqual({ pointer: '/method', expected: 'initialize' });

    const init = await request('initialize', initializeParams);
    expect(init.error).toBeUndefined();
    expect(init.result?.protocolVersion).toBe(2);

    const created = await request('session/new', { cwd: '/work', mcpServers: [] });
    expect(created.error).toBeUndefined();
    expect(typeof created.result?.sessionId).toBe('string');
  });

  it('refuses session/prompt and session/resume before initialize even for an existing session', async () => {
    const agent = new Agent({
      info: { name: 'gate-agent', version: '0.0.0' },
      onPrompt: (prompt) => void prompt.insert(),
    });
    const port = await listen(agent);
    const first = await rawClient(port);
    await first('initialize', initializeParams);
    const created = await first('session/new', { cwd: '/work', mcpServers: [] });
    const sessionId = created.result?.sessionId;
    expect(typeof sessionId).toBe('string');

    // Another connection's initialize does not count for this one.
    const second = await rawClient(port);
    const prompt = await second('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    });
    expect(prompt.error?.code).toBe(-32600);
    expect(prompt.error?.message).toMatch(/^initialize first: session\/prompt/);
    const resume = await second('session/resume', { sessionId, cwd: '/work', mcpServers: [] });
    expect(resume.error?.code).toBe(-32600);
    expect(resume.error?.message).toMatch(/^initialize first: session\/resume/);
    expect(resume.error?.data).toEqual({ pointer: '/method', expected: 'initialize' });
  });
});
