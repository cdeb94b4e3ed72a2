/**
 * A Streamable HTTP connection lives as long as its client uses it, often hours. The `initialize`
 * POST that opened it is one exchange among many: once answered, neither its request nor its
 * response may stay reachable from the connection (each is kilobytes of Node's own state: headers,
 * the response's head, stream states, listeners). Seen in a heap snapshot of the capacity bench:
 * every connection kept its initialize exchange through the callback that forgets it on its end.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { type AcpTransportServer, connectHttp, listenAcp } from '../../src/transports/index.js';

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

describe('a Streamable HTTP connection', () => {
  it('keeps neither the request nor the response of the initialize that opened it', async () => {
    const agent = new Agent({
      info: { name: 'release-agent', version: '0.0.0' },
      onPrompt: (prompt) => void prompt.insert(),
    });
    // The response holds its request (`response.req`): a released request means both are released.
    let request: WeakRef<object> | undefined;
    server = await listenAcp({
      onConnection: (transport, incoming) => {
        request = new WeakRef(incoming);
        agent.serve(new Connection(transport) as AgentConnection);
      },
    });
    client = new Client(
      new Connection(await connectHttp(server.url, { token: server.token! })) as ClientConnection,
      { info: { name: 'release-client', version: '0.0.0' } },
    );
    await client.initialize();
    // The connection goes on being used: a session and a turn over it.
    const sessionId = await client.newSession('/repo');
    await client.prompt(sessionId, [{ type: 'text', text: 'hello' }]);
    expect(request?.deref()).toBeDefined();
    await collect();
    expect(request?.deref(), 'the initialize request is still reachable').toBeUndefined();
  });
});
