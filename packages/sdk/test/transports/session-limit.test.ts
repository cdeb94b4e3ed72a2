/**
 * `limitSessions` in front of a transport that takes batches (`MessageWriter.writeBatch`): a
 * resume's replay still reaches the transport as batches, and the slot bookkeeping of answers to
 * `session/new` is the same for a frame inside a batch as for a frame written alone. And JSON-RPC
 * batches from the client, over a real WebSocket server on 127.0.0.1: their requests count
 * against the limit like single ones, and a batch that would pass it is refused whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { MemorySessionLog } from '../../src/history/index.js';
import {
  Connection,
  ErrorCodes,
  type MessageReaderListener,
  type MessageWriter,
  type Transport,
  RpcError,
} from '../../src/rpc/index.js';
import {
  createInProcessPair,
  listenWebSocket,
  SESSION_LIMIT_ERROR_CODE,
  type WebSocketTransportServer,
} from '../../src/transports/index.js';
import { limitSessions } from '../../src/transports/session-limit.js';

/** What reached a writer: each `write` as one frame, each `writeBatch` as the frames of one call. */
interface Recorded {
  singles: string[];
  batches: string[][];
}

/** Wraps a real writer, recording each call before passing it on. */
function recording(writer: MessageWriter): { writer: MessageWriter; recorded: Recorded } {
  const recorded: Recorded = { singles: [], batches: [] };
  const batch = writer.writeBatch?.bind(writer);
  return {
    recorded,
    writer: {
      write(json, note) {
        recorded.singles.push(json);
        return note === undefined ? writer.write(json) : writer.write(json, note);
      },
      ...(batch === undefined
        ? {}
        : {
            writeBatch(jsons: readonly string[]) {
              recorded.batches.push([...jsons]);
              return batch(jsons);
            },
          }),
      close: () => writer.close(),
    },
  };
}

const client = (transport: Transport): Client =>
  new Client(new Connection(transport) as ClientConnection, { info: { name: 'limit-test', version: '0' } });

describe('limitSessions with batched writes', () => {
  it('hands a resume’s replay to the transport in batches, as the unlimited transport would get it', async () => {
    const agent = new Agent({
      info: { name: 'batching', version: '0.0.0' },
      history: new MemorySessionLog(),
      onPrompt(prompt, { session }) {
        void prompt.insert().then(async () => {
          await session.running();
          const reply = await session.agentMessage();
          for (let i = 0; i < 40; i += 1) await reply.chunk({ type: 'text', text: `${i},` });
          await session.idle('end_turn');
        });
      },
    });
    const [firstAgentSide, firstClientSide] = createInProcessPair();
    agent.serve(new Connection(firstAgentSide) as AgentConnection);
    const first = client(firstClientSide);
    await first.initialize();
    const sessionId = await first.newSession('/repo');
    expect((await first.promptToEnd(sessionId, [{ type: 'text', text: 'go' }])).stopReason).toBe('end_turn');

    const [agentSide, clientSide] = createInProcessPair();
    const { writer, recorded } = recording(agentSide.writer);
    agent.serve(new Connection(limitSessions({ reader: agentSide.reader, writer }, 2)) as AgentConnection);
    const second = client(clientSide);
    await second.initialize();
    await second.resume(sessionId, { cwd: '/repo', replay: true });

    const replayed = recorded.batches.flat().filter((json) => json.includes('"session/update"'));
    expect(recorded.batches.length).toBeGreaterThan(0);
    expect(replayed.some((json) => json.includes('"user_message'))).toBe(true);
    expect(replayed.some((json) => json.includes('"agent_message'))).toBe(true);
    const messages = (c: Client) =>
      c.store.snapshot(sessionId).messages.map((m) => [m.kind, m.messageId, m.content]);
    expect(messages(second)).toEqual(messages(first));
    expect(messages(second)).toHaveLength(2);
  });

  it('frees or keeps a session/new slot by its answer inside a batch, as for an answer written alone', async () => {
    let listener: MessageReaderListener | undefined;
    const batches: string[][] = [];
    const singles: string[] = [];
    const transport: Transport = {
      reader: {
        listen(next) {
          listener = next;
        },
        dispose() {},
      },
      writer: {
        write: async (json) => {
          singles.push(json);
        },
        writeBatch: async (jsons) => {
          batches.push([...jsons]);
        },
        close: async () => {},
      },
    };
    const limited = limitSessions(transport, 2);
    const arrived: unknown[] = [];
    limited.reader.listen({
      onMessage: (text) => arrived.push(JSON.parse(text)),
      onFrameError() {},
      onClose() {},
    });
    const send = (value: unknown): void => listener!.onMessage(JSON.stringify(value));
    const newSession = (id: number) => ({ jsonrpc: '2.0', id, method: 'session/new', params: { cwd: '/w' } });
    const refusedIds = () =>
      singles
        .map((json) => JSON.parse(json) as { id: unknown; error?: { code: number } })
        .filter((m) => m.error?.code === SESSION_LIMIT_ERROR_CODE)
        .map((m) => m.id);

    send(newSession(1));
    send(newSession(2));
    send(newSession(3)); // both slots are held by the two requests in flight
    expect(refusedIds()).toEqual([3]);

    expect(limited.writer.writeBatch).toBeTypeOf('function');
    const batch = [
      JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'failed' } }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, result: { sessionId: 'sess_b' } }),
      JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'sess_b' } }),
    ];
    await limited.writer.writeBatch!(batch);
    expect(batches).toEqual([batch]);

    // The failed session/new gave its slot back; the created session holds the other one.
    send(newSession(4));
    send(newSession(5));
    const prompt = (id: number, sessionId: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'session/prompt',
      params: { sessionId, prompt: [] },
    });
    send(prompt(6, 'sess_b'));
    send(prompt(7, 'sess_unknown'));
    expect(refusedIds()).toEqual([3, 5, 7]);
    expect(arrived.map((m) => (m as { id: unknown }).id)).toEqual([1, 2, 4, 6]);

    // An answer inside a batch to a session/new still in flight keeps its slot for the session it created.
    await limited.writer.writeBatch!([
      JSON.stringify({ jsonrpc: '2.0', id: 4, result: { sessionId: 'sess_d' } }),
    ]);
    send(prompt(8, 'sess_d'));
    send(prompt(9, 'sess_other'));
    expect(refusedIds()).toEqual([3, 5, 7, 9]);
    expect(arrived.map((m) => (m as { id: unknown }).id)).toEqual([1, 2, 4, 6, 8]);
  });

  it('leaves writeBatch out when the transport does not take batches, so the connection writes per message', () => {
    const [side] = createInProcessPair();
    const limited = limitSessions(
      {
        reader: side.reader,
        writer: { write: side.writer.write.bind(side.writer), close: () => side.writer.close() },
      },
      1,
    );
    expect(limited.writer.writeBatch).toBeUndefined();
    expect(limitSessions(side, 1).writer.writeBatch).toBeTypeOf('function');
  });
});

let server: WebSocketTransportServer | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await server?.close();
  server = undefined;
});

/**
 * A WebSocket server on 127.0.0.1 allowing `max` sessions per connection, whose agent side
 * creates `sess_1`, `sess_2`… (and refuses cwd `/refused`), and a raw client socket to it that
 * sends frames as given and reads each frame it gets back.
 */
async function rawClient(max: number) {
  let created = 0;
  server = await listenWebSocket({
    limits: { maxSessionsPerConnection: max },
    onConnection(transport) {
      const agent = new Connection(transport);
      agent.onRequest('session/new', (params) => {
        if ((params as { cwd?: string }).cwd === '/refused') {
          throw new RpcError(ErrorCodes.InvalidParams, 'refused');
        }
        created += 1;
        return { sessionId: `sess_${created}` };
      });
      agent.onRequest('session/prompt', () => ({ messageId: 'mess_1' }));
      agent.listen();
    },
  });
  const socket = new WebSocket(server.url, { headers: { Authorization: `Bearer ${server.token}` } });
  sockets.push(socket);
  const frames: unknown[] = [];
  const waiters: (() => void)[] = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    for (const waiter of waiters.splice(0)) waiter();
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  /** Sends one frame and resolves with the next frame received. */
  const exchange = async (value: unknown): Promise<unknown> => {
    const at = frames.length;
    socket.send(JSON.stringify(value));
    while (frames.length <= at) await new Promise<void>((resolve) => waiters.push(resolve));
    return frames[at];
  };
  return { exchange, created: () => created };
}

const newSession = (id: number, cwd = '/w') => ({
  jsonrpc: '2.0',
  id,
  method: 'session/new',
  params: { cwd },
});
const promptIn = (id: number, sessionId: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'session/prompt',
  params: { sessionId, prompt: [{ type: 'text', text: 'hi' }] },
});
const limitError = { code: SESSION_LIMIT_ERROR_CODE, data: { limit: 'sessions-per-connection', max: 2 } };

describe('limitSessions with JSON-RPC batches from the client', () => {
  it('refuses a batch that would pass the limit as a whole, in one answer array, and runs none of it', async () => {
    const { exchange, created } = await rawClient(2);
    const answer = await exchange([newSession(1), newSession(2), newSession(3)]);
    expect(answer).toEqual(
      [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, error: expect.objectContaining(limitError) })),
    );
    expect((answer as { error: { message: string } }[])[0]!.error.message).toContain(
      'this batch would take this connection past 2 sessions',
    );
    expect(created()).toBe(0);
    // Nothing of the refused batch holds a slot.
    expect(await exchange(newSession(4))).toMatchObject({ id: 4, result: { sessionId: 'sess_1' } });
    expect(await exchange(newSession(5))).toMatchObject({ id: 5, result: { sessionId: 'sess_2' } });
    expect(await exchange(newSession(6))).toMatchObject({ id: 6, error: limitError });
  });

  it('counts the requests of a batch within the limit, and the answers in the batch answer', async () => {
    const { exchange } = await rawClient(2);
    const answer = await exchange([newSession(1, '/refused'), newSession(2)]);
    expect(answer).toEqual([
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: ErrorCodes.InvalidParams }) },
      { jsonrpc: '2.0', id: 2, result: { sessionId: 'sess_1' } },
    ]);
    // The refused session/new gave its slot back: sess_x takes it; sess_1 holds the other one.
    expect(await exchange(promptIn(3, 'sess_x'))).toMatchObject({ id: 3, result: { messageId: 'mess_1' } });
    expect(await exchange(newSession(4))).toMatchObject({ id: 4, error: limitError });
    expect(await exchange(promptIn(5, 'sess_1'))).toMatchObject({ id: 5, result: { messageId: 'mess_1' } });
    expect(await exchange(promptIn(6, 'sess_x'))).toMatchObject({ id: 6, result: { messageId: 'mess_1' } });
    expect(await exchange(promptIn(7, 'sess_other'))).toMatchObject({ id: 7, error: limitError });
    // A batch within what is left passes; one request of it over the limit refuses all of it.
    expect(await exchange([promptIn(8, 'sess_1'), promptIn(9, 'sess_other')])).toEqual([
      { jsonrpc: '2.0', id: 8, error: expect.objectContaining(limitError) },
      { jsonrpc: '2.0', id: 9, error: expect.objectContaining(limitError) },
    ]);
    expect(await exchange([promptIn(10, 'sess_1'), promptIn(11, 'sess_x')])).toEqual([
      { jsonrpc: '2.0', id: 10, result: { messageId: 'mess_1' } },
      { jsonrpc: '2.0', id: 11, result: { messageId: 'mess_1' } },
    ]);
  });
});
