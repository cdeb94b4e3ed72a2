import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WritableHost, writableClientClass } from '../src/writable-host.js';

/** A PostgreSQL backend message: type byte, int32 length (itself included), body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const authenticationOk = message('R', Buffer.from([0, 0, 0, 0]));
const readyForQuery = message('Z', Buffer.from('I', 'latin1'));
/** What a backend sends when its postmaster died under it (SQLSTATE 57P01). */
const fatalPostmasterExit = message(
  'E',
  Buffer.concat([
    ...[
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '57P01'],
      ['M', 'terminating connection due to unexpected postmaster exit'],
    ].map(([field, text]) => Buffer.from(`${field}${text}\0`, 'latin1')),
    Buffer.from([0]),
  ]),
);

/**
 * A server that, once a client's startup message arrives, answers with AuthenticationOk,
 * ReadyForQuery and a FATAL error in one write, then closes: the client parses all three from one
 * packet, so the error comes in the same turn as the connection's completion.
 */
async function dyingServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket: Socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.end(Buffer.concat([authenticationOk, readyForQuery, fatalPostmasterExit]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

describe('a connection to a multi-host database whose server dies as the connection is made', () => {
  it('fails the connect and reports the host lost, without an unheard error event ending the process', async () => {
    const dying = await dyingServer();
    server = dying.server;
    const lost: string[] = [];
    const target = { host: '127.0.0.1', port: dying.port };
    // The parts of WritableHost the client class uses: the host to try, and what became of it.
    const hosts = {
      current: async () => target,
      lost: (_target: unknown, reason: string) => lost.push(reason),
      confirmed: () => undefined,
      connectTimeoutMs: 2000,
    } as unknown as WritableHost;
    const Client = writableClientClass(hosts);
    const client = new Client({ user: 'acp', database: 'postgres', connectionTimeoutMillis: 2000 });
    await expect(client.connect()).rejects.toThrow();
    expect(lost.some((reason) => /unexpected postmaster exit/.test(reason))).toBe(true);
    await client.end().catch(() => undefined);
  });
});
