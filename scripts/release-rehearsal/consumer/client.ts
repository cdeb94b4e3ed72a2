// A small client written against the installed @acp-kit/sdk: it starts agent.js and prompts it once.
import { fileURLToPath } from 'node:url';
import { Client, Connection, spawnTransport } from '@acp-kit/sdk';

const agentPath = fileURLToPath(new URL('./agent.js', import.meta.url));
const client = new Client(new Connection(spawnTransport(process.execPath, [agentPath])), {
  info: { name: 'consumer-client', version: '1.0.0' },
});
await client.initialize();
const sessionId = await client.newSession(process.cwd());
const turnEnded = new Promise<void>((resolve) => {
  const check = (): void => {
    if (client.store.snapshot(sessionId).state.completedTurns >= 1) resolve();
  };
  client.store.subscribe(check);
  check();
});
const messageId = await client.prompt(sessionId, [{ type: 'text', text: 'Hi' }]);
await turnEnded;
const { messages, state } = client.store.snapshot(sessionId);
console.log(`inserted as ${messageId}; turn ended ${state.state}/${state.stopReason}`);
for (const message of messages) {
  const text = message.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`));
  console.log(`  ${message.kind} ${message.messageId} (${message.origin}): ${text.join('')}`);
}
client.close();
