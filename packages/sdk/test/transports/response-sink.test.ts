import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ResponseSink } from '../../src/transports/response-sink.js';
import { SseOutbox } from '../../src/transports/sse-outbox.js';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server whose every request is handed to `onRequest`; resolves with its port. */
async function serve(
  onRequest: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<number> {
  const server = createServer(onRequest);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** GETs `/` with Node's HTTP/1.1 client and resolves with the decoded body. */
function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ port, host: '127.0.0.1', path: '/' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        body += text;
      });
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
    request.end();
  });
}

/** Counts the writes that went to the socket and to the response (every argument passed on). */
function countWrites(response: ServerResponse): { socket: number; response: number } {
  const counts = { socket: 0, response: 0 };
  const socket = response.socket!;
  const socketWrite = socket.write;
  socket.write = function (this: typeof socket, ...args: unknown[]) {
    counts.socket += 1;
    return (socketWrite as (...rest: unknown[]) => boolean).apply(this, args);
  } as typeof socket.write;
  const responseWrite = response.write;
  response.write = function (this: ServerResponse, ...args: unknown[]) {
    counts.response += 1;
    return (responseWrite as (...rest: unknown[]) => boolean).apply(this, args);
  } as typeof response.write;
  return counts;
}

describe('ResponseSink', () => {
  it('frames chunks itself and writes each straight to the socket once the head is sent, and the client decodes them intact', async () => {
    let counts = { socket: 0, response: 0 };
    const events = ['data: {"a":1}\n\n', `data: {"text":"${'é'.repeat(300)} ✓"}\n\n`, 'data: {"a":3}\n\n'];
    const port = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(':\n\n');
      const sink = new ResponseSink(response);
      sink.headSent();
      const live = countWrites(response);
      for (const event of events) sink.write(event);
      counts = { ...live };
      sink.end();
    });
    const body = await get(port);
    expect(body).toBe(`:\n\n${events.join('')}`);
    // Three events: three socket writes (each one whole frame), none through the response.
    expect(counts).toEqual({ socket: 3, response: 0 });
  });

  it('writes through the response before the head is sent', async () => {
    let counts = { socket: 0, response: 0 };
    const port = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const live = countWrites(response);
      const sink = new ResponseSink(response);
      sink.write('data: {"a":1}\n\n');
      counts = { ...live };
      sink.end();
    });
    expect(await get(port)).toBe('data: {"a":1}\n\n');
    expect(counts.response).toBe(1);
  });

  it('writes through the response when the body is not chunked (an HTTP/1.0 reader)', async () => {
    let counts = { socket: 0, response: 0 };
    const port = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(':\n\n');
      const sink = new ResponseSink(response);
      sink.headSent();
      const live = countWrites(response);
      sink.write('data: {"a":1}\n\n');
      counts = { ...live };
      sink.end();
    });
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.0\r\nHost: x\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw.endsWith('\r\n\r\n:\n\ndata: {"a":1}\n\n')).toBe(true);
    expect(counts.response).toBe(1);
  });

  it('writes through a response that is not a Node HTTP/1.1 one (an HTTP/2 or fetch response)', () => {
    const writes: string[] = [];
    const sink = new ResponseSink({
      writableLength: 0,
      destroyed: false,
      write: (chunk) => writes.push(chunk) > 0,
      end: () => undefined,
    });
    sink.headSent();
    sink.write('data: {}\n\n');
    expect(writes).toEqual(['data: {}\n\n']);
  });

  it('writes through the response while the response still buffers bytes of its own (they must not be overtaken)', () => {
    const writes: string[] = [];
    const socketWrites: string[] = [];
    const sink = new ResponseSink(
      Object.assign(
        {
          writableLength: 10,
          destroyed: false,
          write: (chunk: string) => writes.push(chunk) > 0,
          end: () => undefined,
        },
        {
          chunkedEncoding: true,
          writableEnded: false,
          socket: {
            writable: true,
            writableLength: 0,
            write: (chunk: string) => socketWrites.push(chunk) > 0,
          },
        },
      ),
    );
    sink.headSent();
    sink.write('data: {}\n\n');
    expect(writes).toEqual(['data: {}\n\n']);
    expect(socketWrites).toEqual([]);
  });

  it('frames a flush of an outbox with the byte count the outbox kept, and the client decodes multi-byte text intact', async () => {
    const jsons = ['{"a":1}', `{"text":"${'é'.repeat(300)} ✓ 😀"}`, '{"a":3}'];
    const port = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(':\n\n');
      const sink = new ResponseSink(response);
      sink.headSent();
      const outbox = new SseOutbox(1 << 20);
      outbox.attach(sink);
      for (const json of jsons) outbox.push(json);
      // Flushed as one write at the end of this turn; then the response ends.
      queueMicrotask(() => outbox.close());
    });
    const body = await get(port);
    expect(body).toBe(`:\n\n${jsons.map((json) => `data: ${json}\n\n`).join('')}`);
  });
});
