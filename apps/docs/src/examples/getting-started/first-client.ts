import { Client, Connection, spawnTransport } from '@acp-kit/sdk';

// Start an agent as a child process and speak ACP v2 over its stdio:
// here the reference agent, or your own: spawnTransport('npx', ['tsx', 'first-agent.ts']).
const agent = spawnTransport('npx', ['acp-kit', 'agent']);
const client = new Client(new Connection(agent), { info: { name: 'first-client', version: '0.1.0' } });

await client.initialize();
const sessionId = await client.newSession(process.cwd());

// The turn ends with a state_update to idle carrying a stopReason.
const turnEnded = new Promise<void>((resolve) => {
  client.store.subscribe(() => {
    const { state } = client.store.snapshot(sessionId);
    if (state.state === 'idle' && state.stopReason !== null) resolve();
  });
});

// Resolves as soon as the message is inserted, with its messageId.
const messageId = await client.prompt(sessionId, [{ type: 'text', text: 'Hello, agent' }]);
console.log('inserted as', messageId);
await turnEnded;

for (const message of client.store.snapshot(sessionId).messages) {
  const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  console.log(`${message.kind}: ${text}`);
}
client.close();
await agent.shutdown();
