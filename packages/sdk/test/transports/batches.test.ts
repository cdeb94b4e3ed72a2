import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Agent } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { Connection, ErrorCodes, type Transport } from '../../src/rpc/index.js';
import {
  connectWebSocket,
  createInProcessPair,
  listenWebSocket,
  spawnTransport,
  type WebSocketTransportServer,
} from '../../src/transports/index.js';

/**
 * JSON-RPC batches on real transports: an SDK agent in a child process over stdio, an agent and a
 * client over WebSocket on 127.0.0.1, and both over the in-process pair. The peer under the test's
 * control writes raw batch lines, since neither SDK side ever sends a batch itself.
 */

const batchAgent = fileURLToPath(new URL('./fixtures/batch-agent.ts', import.meta.url));
const batchPeer = fileURLToPath(new URL('./fixtures/batch-peer.ts', import.meta.url));

type Message = Record<string, unknown> | Record<string, unknown>[];

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: 2, info: { name: 'raw', version: '0' } },
};
const newSession = (id: string | number) => ({
  jsonrpc: '2.0',
  id,
  method: 'session/new',
  params: { cwd: '/work', mcpServers: [] },
});
const prompt = (id: string | number, sessionId: string, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'session/prompt',
  params: { sessionId, prompt: [{ type: 'text', text }] },
});
const cancel = (sessionId: string) => ({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });

/** A line-oriented raw peer: what it wrote goes in, every message the other side wrote comes out. */
interface RawLink {
  send(value: unknown): void;
  /** Sends one message's text as is (the transport frames it). */
  sendText(text: string): void;
  next(): Promise<Message>;
  /** Every message received so far, in order. */
  log: Message[];
  close(): void;
}

function queue(): Pick<RawLink, 'next' | 'log'> & { push(message: Message): void } {
  const log: Message[] = [];
  const ready: Message[] = [];
  const waiters: ((m: Message) => void)[] = [];
  return {
    log,
    push(message) {
      log.push(message);
      const waiter = waiters.shift();
      if (waiter) waiter(message);
      else ready.push(message);
    },
    next: () => {
      const message = ready.shift();
      return message ? Promise.resolve(message) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

const closers: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The SDK agent fixture as a real child process, driven through its raw stdin and stdout. */
function childAgent(): RawLink {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', batchAgent], {
    stdio: 'pipe',
  });
  const q = queue();
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      q.push(JSON.parse(pending.slice(0, nl)) as Message);
      pending = pending.slice(nl + 1);
    }
  });
  const link: RawLink = {
    ...q,
    send: (value) => child.stdin.write(`${JSON.stringify(value)}\n`),
    sendText: (text) => child.stdin.write(`${text}\n`),
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
  closers.push(link.close);
  return link;
}

/** A raw link over one side of a transport (the in-process pair's or a WebSocket server's). */
function transportLink(transport: Transport): RawLink {
  const q = queue();
  transport.reader.listen({
    onMessage: (text) => q.push(JSON.parse(text) as Message),
    onFrameError: () => {},
    onClose: () => {},
  });
  const link: RawLink = {
    ...q,
    send: (value) => void transport.writer.write(JSON.stringify(value)),
    sendText: (text) => void transport.writer.write(text),
    close: () => {
      transport.reader.dispose();
      void transport.writer.close();
    },
  };
  closers.push(link.close);
  return link;
}

/** An SDK agent on one side of the in-process pair; the test holds the other side raw. */
function inProcessAgent(): RawLink {
  const [agentSide, rawSide] = createInProcessPair();
  const agent = new Agent({
    info: { name: 'in-process', version: '0' },
    async onPrompt(p) {
      await p.insert();
    },
  });
  agent.serve(new Connection(agentSide), 'in-process');
  return transportLink(rawSide);
}

let server: WebSocketTransportServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An SDK agent behind a WebSocket server on 127.0.0.1, reached by a raw `ws` socket. */
async function webSocketAgent(maxMessageBytes?: number): Promise<RawLink & { closed: Promise<number> }> {
  const agent = new Agent({
    info: { name: 'ws', version: '0' },
    async onPrompt(p) {
      await p.insert();
    },
  });
  server = await listenWebSocket({
    maxMessageBytes,
    onConnection: (transport) => void agent.serve(new Connection(transport), 'ws'),
  });
  const socket = new WebSocket(server.url, { headers: { Authorization: `Bearer ${server.token!}` } });
  const q = queue();
  socket.on('message', (data) => q.push(JSON.parse(String(data)) as Message));
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise((resolve) => socket.once('open', resolve));
  const link = {
    ...q,
    closed,
    send: (value: unknown) => socket.send(JSON.stringify(value)),
    sendText: (text: string) => socket.send(text),
    close: () => socket.close(),
  };
  closers.push(link.close);
  return link;
}

const transports: [string, () => RawLink | Promise<RawLink>][] = [
  ['a child process over stdio', childAgent],
  ['WebSocket', () => webSocketAgent()],
  ['the in-process pair', inProcessAgent],
];

/** Answers of a batch, by id. */
function answersById(message: Message): Map<unknown, Record<string, unknown>> {
  expect(Array.isArray(message)).toBe(true);
  return new Map((message as Record<string, unknown>[]).map((answer) => [answer.id, answer]));
}

/** Initializes and opens a session with single messages; returns its ID. */
async function openSession(link: RawLink): Promise<string> {
  link.send(INITIALIZE);
  expect(await link.next()).toMatchObject({ id: 'init', result: { protocolVersion: 2 } });
  link.send(newSession('new'));
  const created = (await link.next()) as { result: { sessionId: string } };
  return created.result.sessionId;
}

describe.each(transports)('an agent receiving batches over %s', (_name, connect) => {
  it('answers an empty batch with a single -32600 with id null', async () => {
    const link = await connect();
    link.sendText('[]');
    expect(await link.next()).toMatchObject({ id: null, error: { code: ErrorCodes.InvalidRequest } });
  });

  it('handles initialize then session/new in one batch, in order, and answers both in one array', async () => {
    const link = await connect();
    link.send([INITIALIZE, newSession(2)]);
    const answers = answersById(await link.next());
    expect(answers.get('init')).toMatchObject({ result: { protocolVersion: 2 } });
    expect(answers.get(2)).toMatchObject({ result: { sessionId: expect.any(String) } });
  });

  it('answers invalid entries one by one and keeps the rest of the batch working', async () => {
    const link = await connect();
    const sessionId = await openSession(link);
    link.send([
      { jsonrpc: '2.0', id: 'bad-method', method: 7 },
      { jsonrpc: '2.0', id: 'no-params', method: 'session/prompt', params: { sessionId } },
      'not an object',
      prompt('ok', sessionId, 'hello'),
    ]);
    let batch: Message;
    do batch = await link.next();
    while (!Array.isArray(batch));
    const answers = answersById(batch);
    expect(answers.size).toBe(4);
    expect(answers.get('bad-method')).toMatchObject({ error: { code: ErrorCodes.InvalidRequest } });
    expect(answers.get('no-params')).toMatchObject({
      error: { code: ErrorCodes.InvalidParams, data: { pointer: '/params/prompt' } },
    });
    expect(answers.get(null)).toMatchObject({ error: { code: ErrorCodes.InvalidRequest } });
    expect(answers.get('ok')).toMatchObject({ result: { messageId: expect.any(String) } });
  });

  it('sends nothing for a batch of notifications only', async () => {
    const link = await connect();
    const sessionId = await openSession(link);
    link.send([cancel(sessionId), cancel(sessionId), { jsonrpc: '2.0', method: '_vendor/ping' }]);
    link.send(newSession('after'));
    // Messages are answered in order on every transport: the next thing written is this answer.
    expect(await link.next()).toMatchObject({ id: 'after', result: { sessionId: expect.any(String) } });
  });

  it('answers a batch holding session/prompt only after the user message was inserted', async () => {
    const link = await connect();
    const sessionId = await openSession(link);
    const before = link.log.length;
    link.send([prompt('p', sessionId, 'slow'), newSession('other')]);
    let batch: Message;
    do batch = await link.next();
    while (!Array.isArray(batch));
    const receipt = answersById(batch).get('p') as { result: { messageId: string } };
    expect(answersById(batch).get('other')).toMatchObject({ result: { sessionId: expect.any(String) } });
    const inserted = link.log
      .slice(before)
      .findIndex(
        (m) =>
          !Array.isArray(m) &&
          m.method === 'session/update' &&
          (m.params as { update: { sessionUpdate: string; messageId?: string } }).update.sessionUpdate ===
            'user_message' &&
          (m.params as { update: { messageId: string } }).update.messageId === receipt.result.messageId,
      );
    const answered = link.log.slice(before).indexOf(batch);
    expect(inserted).toBeGreaterThanOrEqual(0);
    expect(inserted).toBeLessThan(answered);
  });
});

describe('batch size limits on real transports', () => {
  it('refuses a batch line over the 8 MiB limit of a child process agent as a whole, with one -32600', async () => {
    const link = childAgent();
    const pad = 'x'.repeat(1024 * 1024);
    const entries = Array.from({ length: 9 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'initialize',
      params: { protocolVersion: 2, info: { name: pad, version: '0' } },
    }));
    link.send(entries);
    expect(await link.next()).toMatchObject({
      id: null,
      error: { code: ErrorCodes.InvalidRequest, data: { reason: 'oversized' } },
    });
    link.send(INITIALIZE);
    expect(await link.next()).toMatchObject({ id: 'init', result: { protocolVersion: 2 } });
  });

  it('closes a WebSocket whose batch frame exceeds the limit (1009), as for any oversized frame', async () => {
    const link = await webSocketAgent(4096);
    link.send(
      Array.from({ length: 8 }, (_, i) => ({
        ...INITIALIZE,
        id: i,
        params: { ...INITIALIZE.params, info: { name: 'x'.repeat(600), version: '0' } },
      })),
    );
    expect(await link.closed).toBe(1009);
  });
});

describe('a client receiving batches', () => {
  const ask = (id: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'session/request_permission',
    params: {
      sessionId: 'sess_batch',
      title: `may I (${id})?`,
      options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
    },
  });
  const batch = [
    ask('p1'),
    {
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 'sess_batch', update: { sessionUpdate: 'state_update', state: 'running' } },
    },
    { jsonrpc: '2.0', id: 'broken', method: 5 },
    ask('p2'),
  ];
  const allow = () => ({ outcome: { outcome: 'selected' as const, optionId: 'allow' } });

  function expectAnswers(line: unknown): void {
    const answers = answersById(line as Message);
    expect(answers.size).toBe(3);
    expect(answers.get('p1')).toMatchObject({
      result: { outcome: { outcome: 'selected', optionId: 'allow' } },
    });
    expect(answers.get('p2')).toMatchObject({
      result: { outcome: { outcome: 'selected', optionId: 'allow' } },
    });
    expect(answers.get('broken')).toMatchObject({ error: { code: ErrorCodes.InvalidRequest } });
  }

  it('answers an agent child process’s batch with one array, the notification unanswered', async () => {
    const lines: string[] = [];
    let arrived: () => void = () => {};
    const got = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const transport = spawnTransport(
      process.execPath,
      ['--import', 'tsx', batchPeer, JSON.stringify(batch)],
      {
        name: 'batch-peer',
        onStderr: (text) => {
          for (const line of text.split('\n')) if (line.startsWith('got ')) lines.push(line.slice(4));
          if (lines.length > 0) arrived();
        },
      },
    );
    const client = new Client(new Connection(transport), {
      info: { name: 'c', version: '0' },
      onPermission: allow,
    });
    closers.push(() => client.close());
    await got;
    expectAnswers(JSON.parse(lines[0]!));
    client.close();
    await transport.shutdown();
    expect(lines).toHaveLength(1);
  });

  it('answers a batch over WebSocket and over the in-process pair with one array', async () => {
    let agentSide: Transport | undefined;
    const connected = new Promise<void>((resolve) => {
      void listenWebSocket({
        onConnection: (transport) => {
          agentSide = transport;
          resolve();
        },
      }).then(async (listening) => {
        server = listening;
        const client = new Client(
          new Connection(await connectWebSocket(listening.url, { token: listening.token! })),
          {
            info: { name: 'c', version: '0' },
            onPermission: allow,
          },
        );
        closers.push(() => client.close());
      });
    });
    await connected;
    const overWs = transportLink(agentSide!);
    overWs.send(batch);
    expectAnswers(await overWs.next());

    const [clientSide, rawSide] = createInProcessPair();
    const client = new Client(new Connection(clientSide), {
      info: { name: 'c', version: '0' },
      onPermission: allow,
    });
    closers.push(() => client.close());
    const inProcess = transportLink(rawSide);
    inProcess.send(batch);
    expectAnswers(await inProcess.next());
  });
});
