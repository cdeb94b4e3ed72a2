/**
 * The node:http exchange under a server that refuses early: it answers 413 and resets the socket
 * while the request body is still going out. The answer (or the reset) reaches the caller as a
 * value or a rejection, never as an uncaught socket error, and the refused request gives its socket
 * back: twenty refusals in a row still leave the agent (8 sockets) able to send.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeHttpExchange } from '../../src/transports/node-http-exchange.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function refusingServer(): Promise<string> {
  const server = createServer((incoming, outgoing) => {
    if (
      incoming.headers['content-length'] !== undefined &&
      Number(incoming.headers['content-length']) > 1024
    ) {
      outgoing.writeHead(413, { 'Content-Type': 'text/plain', Connection: 'close' });
      outgoing.end('too large', () => incoming.socket.resetAndDestroy());
      return;
    }
    incoming.resume();
    incoming.once('end', () => outgoing.end('ok'));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/acp`;
}

describe('the node:http short exchange', () => {
  it('settles a request whose server answers and resets mid-body, and serves the next request on a fresh socket', async () => {
    const url = await refusingServer();
    const exchange = nodeHttpExchange(url);
    try {
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const outcome = await exchange
          .send({ method: 'POST', url, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(4 << 20) })
          .then(
            async (answer) => ({
              status: answer.status,
              text: await answer.text(1000).catch((e: Error) => e.message),
            }),
            (error: NodeJS.ErrnoException) => ({ status: 0, text: error.code ?? error.message }),
          );
        // Either the 413 arrived before the reset, or the reset came first and failed the request.
        if (outcome.status === 0) expect(outcome.text).toMatch(/ECONNRESET|EPIPE|socket hang up/);
        else expect(outcome.status).toBe(413);
        const next = await exchange.send({ method: 'POST', url, headers: {}, body: 'small' });
        expect(next.status).toBe(200);
        expect(await next.text(100)).toBe('ok');
      }
    } finally {
      exchange.close();
    }
  }, 30_000); // before the fix, the ninth request waited forever for one of the agent's 8 sockets
});

describe('the node:http short exchange and keep-alive', () => {
  it('closes an idle kept-alive socket itself before the server’s announced keep-alive timeout, so no request races the server closing it', async () => {
    // Node's server announces `Keep-Alive: timeout=2` and closes an idle socket after 2 s; a
    // client that reuses the socket at that moment gets ECONNRESET ("socket hang up").
    let clientEnded = false;
    let closed = false;
    const server = createServer((incoming, outgoing) => {
      incoming.resume();
      incoming.once('end', () => outgoing.end('ok'));
    });
    server.keepAliveTimeout = 2000;
    server.on('connection', (socket) => {
      socket.once('end', () => {
        clientEnded = true;
      });
      socket.once('close', () => {
        closed = true;
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/acp`;
    const exchange = nodeHttpExchange(url);
    try {
      const answer = await exchange.send({ method: 'POST', url, headers: {}, body: 'small' });
      expect(await answer.text(100)).toBe('ok');
      await vi.waitFor(() => expect(closed).toBe(true), { timeout: 10_000, interval: 50 });
      // The client sent its FIN first (the server's own timeout destroys the socket without one).
      expect(clientEnded).toBe(true);
    } finally {
      exchange.close();
    }
  });
});
