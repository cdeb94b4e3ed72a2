/**
 * `listenAcp` accepts sockets on a front server of its own and hands each to its HTTP/1.1, HTTP/2
 * or WebSocket server. `node:http` turns Nagle's algorithm off on the sockets it accepts itself
 * (its `noDelay` option, default true), but only there: a socket emitted to it keeps whatever the
 * accepting server set. Nagle holds each small SSE event back until the previous one is
 * acknowledged, so the front server must turn it off too.
 *
 * Node exposes no getter for TCP_NODELAY; the socket records what was set in an internal symbol
 * (`kSetNoDelay`, the same since Node 17), read here. A Node without that symbol fails the test.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { type AcpTransportServer, connectHttp, listenAcp } from '../../src/transports/index.js';

let server: AcpTransportServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

function noDelayOf(socket: Socket): unknown {
  const symbol = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'kSetNoDelay');
  if (symbol === undefined) throw new Error('this Node has no kSetNoDelay on its sockets');
  return (socket as unknown as Record<symbol, unknown>)[symbol];
}

describe('listenAcp sockets', () => {
  it('turns Nagle’s algorithm off on a Streamable HTTP connection’s socket, as node:http does', async () => {
    const agent = new Agent({
      info: { name: 'nodelay-agent', version: '0.0.0' },
      onPrompt: (prompt) => void prompt.insert(),
    });
    const sockets: Socket[] = [];
    server = await listenAcp({
      onConnection: (transport, request) => {
        sockets.push(request.socket as Socket);
        agent.serve(new Connection(transport) as AgentConnection);
      },
    });
    client = new Client(
      new Connection(await connectHttp(server.url, { token: server.token! })) as ClientConnection,
      {
        info: { name: 'nodelay-client', version: '0.0.0' },
      },
    );
    await client.initialize();
    expect(sockets).toHaveLength(1);
    expect(noDelayOf(sockets[0]!)).toBe(true);
  });
});
