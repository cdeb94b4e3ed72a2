/**
 * `listenAcp`'s front server counts every socket it admits against the endpoint's socket budget,
 * and each one not yet authenticated against the pending caps. A socket's place is given back when
 * it closes, by the one close listener the front keeps per socket: these tests close sockets at
 * each cap and expect the place to come back (a count that never went down would refuse everyone
 * from then on).
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AcpServerOptions, type AcpTransportServer, listenAcp } from '../../src/transports/index.js';

let server: AcpTransportServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

async function serve(limits: AcpServerOptions['limits']): Promise<void> {
  server = await listenAcp({ onConnection: () => {}, limits });
}

/** A raw socket from `localAddress`, connected and kept for the test's cleanup. */
function open(localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: server!.port, host: '127.0.0.1', localAddress });
    sockets.push(socket);
    socket.once('error', reject);
    socket.once('connect', () => resolve(socket));
  });
}

/**
 * Sends one whole request with the endpoint's token on `socket` (kept open: HTTP/1.1 keeps it
 * alive) and resolves with its answer's status line and body once the answer came.
 */
function exchange(socket: Socket): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', method: 'nothing' });
  return new Promise((resolve) => {
    let answer = '';
    socket.setEncoding('latin1');
    const done = (): void => resolve(answer);
    socket.on('data', (piece: string) => {
      answer += piece;
      // Every answer here is short and has a Content-Length: one read holds it.
      if (answer.includes('\r\n\r\n')) done();
    });
    socket.once('close', done);
    socket.write(
      `POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server!.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

/** Whether a fresh socket from `localAddress` gets an answer other than the front's 503. */
async function admitted(localAddress: string): Promise<string> {
  const socket = await open(localAddress);
  const answer = await exchange(socket);
  socket.destroy();
  return answer.split('\r\n', 1)[0]!;
}

describe('the front server gives a closed socket’s place back', () => {
  it('among the sockets waiting to authenticate from one address', async () => {
    await serve({ maxPendingPerAddress: 2, maxPendingHandshakes: 16, handshakeTimeoutMs: 60_000 });
    const waiting = [await open('127.0.0.3'), await open('127.0.0.3')];
    for (const socket of waiting) socket.write('POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const third = await exchange(await open('127.0.0.3'));
    expect(third).toMatch(/^HTTP\/1\.1 503 [\s\S]*too many sockets waiting to authenticate/);
    for (const socket of waiting) socket.destroy();
    await vi.waitFor(async () => expect(await admitted('127.0.0.3')).not.toMatch(/ 503 /), {
      timeout: 10_000,
      interval: 100,
    });
  });

  it('in the endpoint’s socket budget', async () => {
    // One connection of one session: a budget of 1 × (1 + 1 + 8) + 2 pending = 12 sockets.
    await serve({
      maxConnections: 1,
      maxSessionsPerConnection: 1,
      maxPendingHandshakes: 2,
      maxPendingPerAddress: 2,
      handshakeTimeoutMs: 60_000,
    });
    const held: Socket[] = [];
    for (let i = 0; i < 12; i += 1) {
      const socket = await open('127.0.0.4');
      // Answered (authenticated, so no longer pending) and kept open.
      expect(await exchange(socket)).not.toMatch(/ 503 /);
      held.push(socket);
    }
    expect(await exchange(await open('127.0.0.4'))).toMatch(/^HTTP\/1\.1 503 [\s\S]*too many open sockets/);
    for (const socket of held) socket.destroy();
    await vi.waitFor(async () => expect(await admitted('127.0.0.4')).not.toMatch(/ 503 /), {
      timeout: 10_000,
      interval: 100,
    });
  });
});
