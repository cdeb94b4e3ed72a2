/**
 * The node:http exchange under a server that refuses early: it answers 413 and resets the socket
 * while the request body is still going out. The answer (or the reset) reaches the caller as a
 * value or a rejection, never as an uncaught socket error, and the refused request gives its socket
 * back: twenty refusals in a row still leave the agent (8 sockets) able to send.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
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
