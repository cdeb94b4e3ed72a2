// The SDK's agent and client from its sources (the package alias maps @acp-kit/sdk to its history API).
import {
  type Agent,
  type AgentConnection,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
} from '../../sdk/src/index.js';

/**
 * Serves `agent` on a fresh in-process connection and initializes an SDK `Client` on the other
 * end. `received` collects the update of every `session/update` the client is sent, in order; the
 * client's close is pushed to `closers`.
 */
export async function connectClient<U>(
  agent: Agent,
  closers: (() => Promise<void>)[],
): Promise<{ client: Client; received: U[] }> {
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide) as AgentConnection);
  const connection = new Connection(clientSide) as ClientConnection;
  const received: U[] = [];
  connection.onMessage((direction, message) => {
    const m = message as { method?: string; params?: { update: U } };
    if (direction === 'in' && m.method === 'session/update') received.push(m.params!.update);
  });
  const client = new Client(connection, { info: { name: 'c', version: '0' } });
  await client.initialize();
  closers.push(async () => client.close());
  return { client, received };
}
