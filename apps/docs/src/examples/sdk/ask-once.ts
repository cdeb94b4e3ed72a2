import { Client, type ClientConnection, type ConversationMessage } from '@acp-kit/sdk';

/** Sends one prompt and returns the conversation once the agent is idle again. */
export async function askOnce(
  connection: ClientConnection,
  text: string,
): Promise<readonly ConversationMessage[]> {
  const info = { name: 'example-client', version: '1.0.0' };
  const client = new Client(connection, { info });
  await client.initialize();
  const sessionId = await client.newSession('/home/user/project');

  const turnEnded = new Promise<void>((resolve) => {
    client.store.subscribe(() => {
      const { state } = client.store.snapshot(sessionId);
      if (state.state === 'idle' && state.stopReason !== null) resolve();
    });
  });
  // Shown at once as a local-pending entry,
  // then reconciled by the messageId in the receipt.
  const { messageId } = client.submit(sessionId, [{ type: 'text', text }]);
  console.log('inserted as', await messageId);
  await turnEnded;

  const { messages } = client.store.snapshot(sessionId);
  client.close();
  return messages;
}
