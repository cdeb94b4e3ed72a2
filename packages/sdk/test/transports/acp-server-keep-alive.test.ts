/**
 * A Streamable HTTP client POSTs each prompt on a kept-alive socket. With Node's default idle time
 * of 5 s, a client prompting every few seconds opened a new TCP connection for most POSTs; a busy
 * Node process accepts one connection per event-loop turn, so at 1 000 streaming sessions the
 * POSTs waited seconds in the accept queue (the capacity bench's receipt p99 was 10–15 s). The
 * endpoint keeps idle sockets for a minute and says so in `Keep-Alive`, which `connectHttp`'s
 * agent honours (closing a second earlier).
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Connection } from '../../src/rpc/index.js';
import { type AcpTransportServer, listenAcp } from '../../src/transports/index.js';

let server: AcpTransportServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function postInitialize(url: string, token: string): Promise<{ status: number; keepAlive: unknown }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: 2 },
  });
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${token}`,
        Connection: 'keep-alive',
      },
    });
    outgoing.once('response', (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, keepAlive: response.headers['keep-alive'] });
      response.socket.destroy();
    });
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

describe('listenAcp keep-alive', () => {
  it('keeps an idle HTTP/1.1 socket for a minute and announces it, so a client prompting every few seconds reuses its socket', async () => {
    const agent = new Agent({
      info: { name: 'keep-alive-agent', version: '0.0.0' },
      onPrompt: (prompt) => void prompt.insert(),
    });
    server = await listenAcp({
      onConnection: (transport) => agent.serve(new Connection(transport) as AgentConnection),
    });
    const answer = await postInitialize(server.url, server.token!);
    expect(answer.status).toBe(200);
    expect(answer.keepAlive).toBe('timeout=60');
  });
});
