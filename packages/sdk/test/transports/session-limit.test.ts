/**
 * `limitSessions` in front of a transport that takes batches (`MessageWriter.writeBatch`): a
 * resume's replay still reaches the transport as batches, and the slot bookkeeping of answers to
 * `session/new` is the same for a frame inside a batch as for a frame written alone.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { MemorySessionLog } from '../../src/history/index.js';
import {
  Connection,
  type MessageReaderListener,
  type MessageWriter,
  type Transport,
} from '../../src/rpc/index.js';
import { createInProcessPair, limitSessions, SESSION_LIMIT_ERROR_CODE } from '../../src/transports/index.js';

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
