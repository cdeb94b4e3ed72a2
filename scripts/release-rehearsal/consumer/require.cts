// CommonJS consumer: compiled as CommonJS, it loads the ESM packages with require() (Node >= 20.19).
import sdk = require('@acp-kit/sdk');
import rpc = require('@acp-kit/sdk/rpc');
import type { AgentConnection } from '@acp-kit/sdk/agent';

async function main(): Promise<void> {
  const [agentSide, clientSide] = sdk.createInProcessPair();
  const agent = new sdk.Agent({
    info: { name: 'cjs-agent', version: '1.0.0' },
    onPrompt: (p) => void p.insert(),
  });
  const served: AgentConnection = new rpc.Connection(agentSide, { validator: sdk.schemaValidator });
  agent.serve(served);
  const client = new sdk.Client(new sdk.Connection(clientSide), {
    info: { name: 'cjs-client', version: '1.0.0' },
  });
  await client.initialize();
  const sessionId = await client.newSession('/');
  const messageId = await client.prompt(sessionId, [{ type: 'text', text: 'from CommonJS' }]);
  console.log(`require(): @acp-kit/sdk answered a prompt in-process, messageId ${messageId}`);
  client.close();
}
void main();
