/**
 * The Web Streams ndjson transport in Node: an Agent and a Client talking over a real TCP socket on
 * 127.0.0.1 whose ends are turned into `ReadableStream`/`WritableStream` (`Readable.toWeb`,
 * `Writable.toWeb`), the line limit of the Node stream transport (an oversized line is answered
 * and skipped, the next one served), backpressure (a write resolves only once the stream has room)
 * and the end of the stream. Chromium runs it in a worker in packages/cli/test/browser.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { Connection, ErrorCodes, NdjsonDecoder } from '../../src/rpc/index.js';
import { webStreamTransport } from '../../src/transports/index.js';
import { WebStreamMessageWriter } from '../../src/transports/web-stream.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

async function socketPair(): Promise<[Socket, Socket]> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const outgoing = connect((server.address() as { port: number }).port, '127.0.0.1');
  const incoming = await accepted;
  cleanup.push(() => {
    outgoing.destroy();
    incoming.destroy();
    server.close();
  });
  return [incoming, outgoing];
}

const web = (socket: Socket, options: { maxMessageBytes?: number } = {}) =>
  webStreamTransport(
    Readable.toWeb(socket) as ReadableStream<Uint8Array>,
    Writable.toWeb(socket) as WritableStream<Uint8Array>,
    options,
  );

describe('webStreamTransport', () => {
  it('carries an agent and a client over a socket through Web Streams', async () => {
    const [agentEnd, clientEnd] = await socketPair();
    const agent = new Agent({
      info: { name: 'web-agent', version: '0.0.0' },
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: 'over web streams' });
        await session.idle('end_turn');
      },
    });
    agent.serve(new Connection(web(agentEnd)) as never);
    const client = new Client(new Connection(web(clientEnd)) as never, {
      info: { name: 'web-client', version: '0.0.0' },
    });
    const init = await client.initialize();
    expect(init.info?.name).toBe('web-agent');
    const sessionId = await client.newSession('/work');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: 'hi' }]);
    expect(end.error).toBeNull();
    const texts = JSON.stringify(client.store.snapshot(sessionId));
    expect(texts).toContain('over web streams');
    client.close();
  });

  it('answers an oversized line without buffering it whole, and serves the next line', async () => {
    const [serverEnd, peerEnd] = await socketPair();
    const connection = new Connection(web(serverEnd, { maxMessageBytes: 1024 }));
    connection.onRequest('echo', (params) => params);
    connection.listen();
    const answers: Record<string, unknown>[] = [];
    const decoder = new NdjsonDecoder();
    const arrived = new Promise<void>((resolve) => {
      peerEnd.on('data', (chunk: Buffer) => {
        for (const line of decoder.push(chunk)) if (line.ok) answers.push(JSON.parse(line.text));
        if (answers.length >= 2) resolve();
      });
    });
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { pad: 'x'.repeat(5000) } });
    peerEnd.write(huge.slice(0, 700));
    peerEnd.write(`${huge.slice(700)}\n{"jsonrpc":"2.0","id":2,"method":"echo","params":{"after":true}}\n`);
    await arrived;
    expect(answers[0]).toMatchObject({
      id: 1,
      error: { code: ErrorCodes.InvalidRequest, data: { reason: 'oversized', bytes: huge.length } },
    });
    expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 2, result: { after: true } });
    connection.close();
  });

  it('resolves a write only once the stream has room again, in order', async () => {
    const chunks: string[] = [];
    let release: () => void = () => undefined;
    const writable = new WritableStream<Uint8Array>(
      {
        write(chunk) {
          chunks.push(new TextDecoder().decode(chunk));
          // The sink holds every chunk until released: nothing more fits meanwhile.
          return new Promise<void>((resolve) => {
            release = resolve;
          });
        },
      },
      new CountQueuingStrategy({ highWaterMark: 1 }),
    );
    const writer = new WebStreamMessageWriter(writable);
    const settled: string[] = [];
    const first = writer.write('{"n":1}').then(() => settled.push('1'));
    const second = writer.write('{"n":2}').then(() => settled.push('2'));
    // Let every microtask and a macrotask run: the held sink keeps both waiting.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual([]);
    expect(chunks).toEqual(['{"n":1}\n']);
    release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(['{"n":1}\n', '{"n":2}\n']);
    release();
    await second;
    expect(settled).toEqual(['1', '2']);
  });

  it('closes the connection when the readable stream ends, after what it carried', async () => {
    let end: () => void = () => undefined;
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","method":"_hello"}\n'));
        end = () => controller.close();
      },
    });
    const connection = new Connection(webStreamTransport(readable, new WritableStream<Uint8Array>()));
    const seen: string[] = [];
    connection.onNotification('_hello', () => void seen.push('hello'));
    const closed = new Promise<void>((resolve) => connection.onClose(() => resolve()));
    connection.listen();
    end();
    await closed;
    expect(seen).toEqual(['hello']);
    expect(connection.isClosed).toBe(true);
  });

  it('rejects a write to a stream whose sink failed, and every write after it', async () => {
    const writer = new WebStreamMessageWriter(
      new WritableStream<Uint8Array>({
        write() {
          throw new Error('sink broke');
        },
      }),
    );
    await writer.write('{"n":1}').catch(() => undefined);
    await expect(writer.write('{"n":2}')).rejects.toThrow('sink broke');
    await expect(writer.write('{"n":3}')).rejects.toThrow('sink broke');
  });
});
