import { type ClientConnection, Connection, spawnTransport } from '@acp-kit/sdk';
import { askOnce } from './ask-once.js';

// Any ACP v2 agent on stdio; here the reference agent from @acp-kit/cli.
const agentProcess = spawnTransport('npx', ['acp-kit', 'agent']);
const connection: ClientConnection = new Connection(agentProcess);
for (const message of await askOnce(connection, 'Hello')) {
  console.log(message.kind, message.messageId, message.origin);
}
