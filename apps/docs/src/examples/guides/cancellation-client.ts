import type { SessionId } from '@acp-kit/schema';
import type { Client, TurnEnd } from '@acp-kit/sdk';

/** Sends a prompt and cancels its turn if it runs longer than `ms`. Resolves with how the turn ended. */
export async function askWithDeadline(
  client: Client,
  sessionId: SessionId,
  text: string,
  ms: number,
): Promise<TurnEnd> {
  const submission = client.submit(sessionId, [{ type: 'text', text }]);
  // Once inserted, the request is answered: cancelling now means session/cancel.
  await submission.messageId;
  const timer = setTimeout(() => void client.cancel(sessionId), ms);
  try {
    // The first idle with a stop reason after this prompt's insertion: end_turn, or cancelled.
    return await submission.turnEnd;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends a prompt but withdraws it ($/cancel_request) if the agent has not inserted it within `ms`:
 * then the agent answers -32800 and nothing is inserted.
 */
export function submitOrWithdraw(client: Client, sessionId: SessionId, text: string, ms: number) {
  return client.submit(sessionId, [{ type: 'text', text }], { signal: AbortSignal.timeout(ms) });
}
