/**
 * A connection lives as long as its client uses it, often hours. The request that opened it (the
 * `initialize` POST over Streamable HTTP, the upgrade GET over WebSocket) is one exchange among
 * many: once the connection is open, neither that request nor its response may stay reachable
 * from what the connection keeps (each is kilobytes of Node's own state: headers, the response's
 * head, stream states, listeners). Found in a heap snapshot of the capacity bench: over HTTP the
 * callback that forgets a connection when it ends kept its initialize exchange; over WebSocket the
 * socket's error listener kept the upgrade request.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection, type Transport } from '../../src/rpc/index.js';
import {
  type AcpTransportServer,
  connectHttp,
  connectWebSocket,
  listenAcp,
} from '../../src/transports/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: AcpTransportServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

/** Collects garbage once the current job is over (a WeakRef holds its target until then). */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
}

/**
 * Serves an agent, connects a client with `connect`, uses the connection (a session, a turn) and
 * reports whether the request the server handed to `onConnection` is still reachable.
 */
async function openingRequestReleased(
  connect: (server: AcpTransportServer) => Promise<Transport>,
): Promise<boolean> {
  const agent = new Agent({
    info: { name: 'release-agent', version: '0.0.0' },
    onPrompt: (prompt) => void prompt.insert(),
  });
  // A response holds its request (`response.req`): a released request means both are released.
  let request: WeakRef<object> | undefined;
  server = await listenAcp({
    onConnection: (transport, incoming) => {
      request = new WeakRef(incoming);
      agent.serve(new Connection(transport) as AgentConnection);
    },
  });
  client = new Client(new Connection(await connect(server)) as ClientConnection, {
    info: { name: 'release-client', version: '0.0.0' },
  });
  await client.initialize();
  // The connection goes on being used: a session and a turn over it.
  const sessionId = await client.newSession('/repo');
  await client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
  // The connection was opened (its target may already be gone: a GC of the runtime's own may have
  // run during the turn, which is what this test wants to see).
  expect(request).toBeDefined();
  await collect();
  return request?.deref() === undefined;
}

describe('an open connection', () => {
  it('over Streamable HTTP keeps neither the request nor the response of the initialize that opened it', async () => {
    expect(await openingRequestReleased((s) => connectHttp(s.url, { token: s.token! }))).toBe(true);
  });

  it('over WebSocket keeps no hold of the upgrade request that opened it', async () => {
    expect(await openingRequestReleased((s) => connectWebSocket(s.webSocketUrl, { token: s.token! }))).toBe(
      true,
    );
  });
});
