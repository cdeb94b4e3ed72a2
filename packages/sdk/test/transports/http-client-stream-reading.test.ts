/**
 * How the Streamable HTTP client reads its SSE streams, in Node (`node:http`) and over `fetch` (the
 * browser-safe entry), against a server written here that sends exactly the bytes a test asks for:
 * events split anywhere (inside a character, between a CR and its LF) arrive whole and in order;
 * an event that never ends is cut off at the message limit with the transport closed, not
 * buffered; a stream the server ends or cuts closes the transport with a reason naming it; and a
 * session stream's request of the agent's is answered with that session's header whatever the
 * spelling of its `id` member; and only an answer to a request the client sent opens a session's
 * stream, however many sessions a server's other messages name.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/rpc/index.js';
import { connectHttp as connectBrowserSafe } from '../../src/transports/http-client.js';
import { connectHttp as connectNode } from '../../src/transports/node-http-client.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 2, clientCapabilities: {} },
});

interface Seen {
  method: string;
  sessionId: string | undefined;
  body: string;
}

/**
 * A server that answers initialize with a connection ID, every POST with 202, and each stream's GET
 * by calling `stream` with its response (and the session it names, if any).
 */
async function scriptedServer(
  stream: (response: ServerResponse, sessionId: string | undefined) => void,
): Promise<{ url: string; seen: Seen[]; sockets: number }> {
  const seen: Seen[] = [];
  const state = { sockets: 0 };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (piece: string) => {
      body += piece;
    });
    request.on('end', () => {
      const sessionId = request.headers['acp-session-id'] as string | undefined;
      seen.push({ method: request.method!, sessionId, body });
      if (request.method === 'GET') {
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.flushHeaders();
        stream(response, sessionId);
      } else if (body.includes('"initialize"')) {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Acp-Connection-Id': 'c-1' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 2 } }));
      } else {
        response.writeHead(202).end();
      }
    });
  });
  server.on('connection', () => {
    state.sockets += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/acp`,
    seen,
    get sockets() {
      return state.sockets;
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What a transport delivered, and how it closed. */
interface Received {
  messages: string[];
  closed: Promise<Error | undefined>;
}

function listen(transport: Transport): Received {
  const messages: string[] = [];
  const closed = new Promise<Error | undefined>((resolve) => {
    transport.reader.listen({
      onMessage: (text) => messages.push(text),
      onFrameError: () => {},
      onClose: resolve,
    });
  });
  cleanups.push(() => transport.writer.close());
  return { messages, closed };
}

const clients = [
  ['node:http', connectNode],
  ['fetch', connectBrowserSafe],
] as const;

/** Writes `pieces` to `response` one per event-loop turn, so each arrives as its own read. */
async function trickle(response: ServerResponse, pieces: readonly (string | Buffer)[]): Promise<void> {
  for (const piece of pieces) {
    response.write(piece);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe.each(clients)('the HTTP client over %s reading a stream', (_name, connect) => {
  it('delivers events split anywhere (inside a character, between CR and LF) whole and in order', async () => {
    const events = [
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', text: 'déjà vu 🙂' } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', text: 'two' } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', text: 'three' } },
    ].map((event) => JSON.stringify(event));
    const wire = Buffer.from(
      `:comment\r\ndata: ${events[0]}\r\n\r\ndata:${events[1]}\r\rid: 9\ndata: ${events[2]}\n\n`,
      'utf8',
    );
    // Cut at every 3rd byte: that splits the 2- and 4-byte characters and the CRLF pairs somewhere.
    const pieces: Buffer[] = [];
    for (let at = 0; at < wire.length; at += 3) pieces.push(wire.subarray(at, at + 3));
    const { url } = await scriptedServer((response, sessionId) => {
      if (sessionId === undefined) void trickle(response, pieces);
    });
    const transport = await connect(url);
    const got = listen(transport);
    await transport.writer.write(INITIALIZE);
    await expect.poll(() => got.messages.length, { timeout: 10_000 }).toBe(4);
    expect(got.messages.slice(1)).toEqual(events);
  });

  it('closes the transport at an event past maxMessageBytes that never ends, without holding it', async () => {
    let sent = 0;
    let stop = false;
    const { url } = await scriptedServer((response, sessionId) => {
      if (sessionId !== undefined) return;
      response.on('close', () => {
        stop = true;
      });
      void (async () => {
        response.write('data: ');
        // An endless line: 4 KiB per turn until the client goes away.
        while (!stop && sent < 64 * 1024 * 1024) {
          response.write('x'.repeat(4096));
          sent += 4096;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
    });
    const transport = await connect(url, { maxMessageBytes: 64 * 1024 });
    const got = listen(transport);
    await transport.writer.write(INITIALIZE);
    const reason = await got.closed;
    expect(reason?.message).toMatch(
      /GET \(connection stream\) stream failed: SSE event larger than 65536 bytes/,
    );
    // The server stopped long before it sent 64 MiB: the client cut the stream off.
    await expect.poll(() => stop, { timeout: 10_000 }).toBe(true);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });

  it('closes the transport naming the stream when the server ends it, and when it cuts it mid-event', async () => {
    const ended = await scriptedServer((response, sessionId) => {
      if (sessionId === undefined)
        response.end(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'x' })}\n\n`);
    });
    const first = await connect(ended.url);
    const gotEnded = listen(first);
    await first.writer.write(INITIALIZE);
    expect((await gotEnded.closed)?.message).toBe(
      'ACP over HTTP: the server ended the GET (connection stream) stream',
    );
    expect(gotEnded.messages).toHaveLength(2);

    const cut = await scriptedServer((response, sessionId) => {
      if (sessionId === undefined) {
        response.write('data: {"jsonrpc":"2.0","meth');
        setTimeout(() => response.socket?.destroy(), 20);
      }
    });
    const second = await connect(cut.url);
    const gotCut = listen(second);
    await second.writer.write(INITIALIZE);
    const reason = await gotCut.closed;
    expect(reason?.message).toMatch(
      /^ACP over HTTP: the (GET \(connection stream\) stream failed|server ended the GET \(connection stream\) stream)/,
    );
    expect(gotCut.messages).toHaveLength(1); // the initialize answer; the half event is dropped
  });

  it('answers a request of the agent’s on a session’s stream with that session’s header, whatever the spelling of its id', async () => {
    let connectionStream: ServerResponse | undefined;
    const { url, seen } = await scriptedServer((response, sessionId) => {
      if (sessionId === undefined) {
        connectionStream = response;
        return;
      }
      // Two requests of the agent's: one plain, one whose member name is escaped (`\u0069d` is `id`).
      response.write(
        `data: {"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{}}\n\n`,
      );
      response.write(
        `data: {"jsonrpc":"2.0","\\u0069d":"p2","method":"session/request_permission","params":{}}\n\n`,
      );
    });
    const transport = await connect(url);
    const got = listen(transport);
    await transport.writer.write(INITIALIZE);
    await transport.writer.write(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/' } }),
    );
    // The answer to session/new, naming the session: the client opens its stream.
    connectionStream!.write(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 'sess-7' } })}\n\n`,
    );
    await expect.poll(() => got.messages.length, { timeout: 10_000 }).toBe(4);
    await transport.writer.write(JSON.stringify({ jsonrpc: '2.0', id: 'p1', result: { outcome: 'x' } }));
    await transport.writer.write(JSON.stringify({ jsonrpc: '2.0', id: 'p2', result: { outcome: 'x' } }));
    const answers = seen.filter((s) => s.method === 'POST' && s.body.includes('"outcome"'));
    expect(answers.map((a) => a.sessionId)).toEqual(['sess-7', 'sess-7']);
  });

  it('opens a session’s stream only for an answer to a request it sent, not for 2 000 answers nobody asked for', async () => {
    let connectionStream: ServerResponse | undefined;
    const { url, seen } = await scriptedServer((response, sessionId) => {
      if (sessionId !== undefined) return;
      connectionStream = response;
      // Answers to requests never sent, each naming a session of its own.
      let flood = '';
      for (let i = 0; i < 2000; i += 1)
        flood += `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, result: { sessionId: `fake-${i}` } })}\n\n`;
      response.write(flood);
    });
    const transport = await connect(url);
    const got = listen(transport);
    await transport.writer.write(INITIALIZE);
    await expect.poll(() => got.messages.length, { timeout: 10_000 }).toBe(2001);
    await transport.writer.write(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/' } }),
    );
    connectionStream!.write(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 'real' } })}\n\n`,
    );
    await expect.poll(() => seen.filter((s) => s.method === 'GET').length, { timeout: 10_000 }).toBe(2);
    // A second answer to the same request (already answered) opens nothing either.
    connectionStream!.write(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 'again' } })}\n\n`,
    );
    await expect.poll(() => got.messages.length, { timeout: 10_000 }).toBe(2003);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.filter((s) => s.method === 'GET').map((s) => s.sessionId)).toEqual([undefined, 'real']);
  });
});
