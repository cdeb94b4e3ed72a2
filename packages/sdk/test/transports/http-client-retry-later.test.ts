/**
 * At the endpoint's socket limits a client reads why and tries again: a socket over the cap of
 * sockets waiting to authenticate is answered `503` with `Retry-After` (not reset unread), and
 * `connectHttp` sends a request so refused again after the wait, so a session opened while another
 * client from the same address holds the cap still opens once a slot frees.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection, ConversationStore } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { type AcpTransportServer, connectHttp, listenAcp } from '../../src/transports/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(): Promise<AcpTransportServer> {
  const agent = new Agent({
    info: { name: 'retry-later-agent', version: '0.0.0' },
    async onPrompt(prompt) {
      await prompt.insert();
    },
  });
  const server = await listenAcp({
    limits: { maxPendingPerAddress: 2, maxPendingHandshakes: 8, handshakeTimeoutMs: 60_000 },
    onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
  });
  cleanups.push(() => server.close());
  return server;
}

/** A socket that connects and sends nothing (it stays pending); resolves once connected. */
function silentSocket(port: number, sockets: Socket[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    sockets.push(socket);
    socket.on('error', () => {});
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
}

/** What a raw request on a fresh socket gets back, once the server closes it. */
function rawAnswer(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (piece: string) => {
      text += piece;
    });
    socket.on('error', () => {});
    socket.once('close', () => resolve(text));
    socket.once('connect', () => socket.write('GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
  });
}

describe('connectHttp at the endpoint’s socket limits', () => {
  it('answers a socket over the pending cap 503 with Retry-After and a reason, and connectHttp opens its session once a slot frees', async () => {
    const server = await serve();
    const statuses: number[] = [];
    const silent: Socket[] = [];
    cleanups.push(() => {
      for (const socket of silent) socket.destroy();
    });
    // Every request through fetch, so each one's status is seen; a refusal frees the slots.
    const watched: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      if (response.status === 503) for (const socket of silent) socket.destroy();
      return response;
    };
    const transport = await connectHttp(server.url, { token: server.token!, fetch: watched });
    const client = new Client(new Connection(transport) as ClientConnection, {
      info: { name: 'retry-later-client', version: '0.0.0' },
      store: new ConversationStore(),
    });
    cleanups.push(() => client.close());
    await client.initialize();

    await silentSocket(server.port, silent);
    await silentSocket(server.port, silent);
    // The cap is full: a fresh socket is told why, in HTTP, before its request is read.
    const refusal = await rawAnswer(server.port);
    expect(refusal).toMatch(/^HTTP\/1\.1 503 /);
    expect(refusal).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(refusal).toContain('too many sockets waiting to authenticate');

    // The session's stream (a GET holding a socket of its own) opens on a fresh socket while the cap is full.
    const held: Promise<void>[] = [];
    for (let i = 0; i < 4; i += 1) held.push(silentSocket(server.port, silent).catch(() => undefined));
    await Promise.all(held);
    const sessionId = await client.newSession('/repo');
    // A prompt waits for its session's stream to be open.
    await client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    expect(statuses).toContain(503);
    expect(statuses.at(-1)).not.toBe(503);
  });
});
