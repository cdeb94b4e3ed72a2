/**
 * The owning replica of the agent-level failover benchmark (a child process of failover.ts): an
 * SDK agent with PostgresSessionOwnership over the shared database, and an in-process client that
 * creates a session here (so this replica owns it) and prompts a long, slowly streamed turn. Prints
 * "streaming <sessionId>" once the turn is under way, then streams until it is killed.
 */
import {
  Agent,
  type AgentConnection,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
} from '@acp-kit/sdk';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';

const [url, schema, leaseText] = process.argv.slice(2) as [string, string, string];
const log = await PostgresSessionLog.open(url, { schema, maxConnections: 4 });
const ownership = await PostgresSessionOwnership.open(log, url, { leaseMs: Number(leaseText) });
const agent = new Agent({
  info: { name: 'bench-owner', version: '0' },
  history: ownership.log,
  ownership,
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.running();
    const reply = await session.agentMessage();
    for (let i = 0; i < 100_000; i++) {
      await reply.chunk({ type: 'text', text: `chunk ${i} ` });
      if (i === 5) process.stdout.write(`streaming ${session.id}\n`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await session.idle('end_turn');
  },
});
const [agentSide, clientSide] = createInProcessPair();
agent.serve(new Connection(agentSide) as AgentConnection);
const client = new Client(new Connection(clientSide) as ClientConnection, {
  info: { name: 'owner', version: '0' },
});
await client.initialize();
const sessionId = await client.newSession('/bench');
await client.prompt(sessionId, [{ type: 'text', text: 'a long turn' }]);
