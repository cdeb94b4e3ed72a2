import { Client, type ClientConnection, type ConversationMessage } from '@acp-kit/sdk';

/** Sends one prompt and returns the conversation once the turn it started has ended. */
export async function askOnce(
  connection: ClientConnection,
  text: string,
): Promise<readonly ConversationMessage[]> {
  const info = { name: 'example-client', version: '1.0.0' };
  const client = new Client(connection, { info });
  await client.initialize();
  const sessionId = await client.newSession('/home/user/project');

  // Shown at once as a local-pending entry,
  // then reconciled by the messageId in the receipt.
  const { messageId, turnEnd } = client.submit(sessionId, [{ type: 'text', text }]);
  console.log('inserted as', await messageId);
  // The first idle with a stop reason after this prompt's insertion,
  // never the previous turn's.
  const { stopReason } = await turnEnd;
  console.log('turn ended:', stopReason);

  const { messages } = client.store.snapshot(sessionId);
  client.close();
  return messages;
}
