import type { AgentSession, ClientPeer } from '@acp-kit/sdk';

/**
 * A prompt starting with `/write` asks `session/request_permission` first (`requires_action`),
 * then answers whether it was allowed; withdrawn or answered `cancelled`, the turn is cancelled.
 */
export async function writeCommand(
  session: AgentSession,
  text: string,
  client: ClientPeer,
  signal: AbortSignal,
): Promise<void> {
  const answer = await session.requestPermission(
    {
      title: `Allow: ${text}`,
      options: [
        { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    },
    client,
  );
  const allowed =
    answer.outcome.outcome === 'selected' &&
    'optionId' in answer.outcome &&
    answer.outcome.optionId === 'allow';
  // Withdrawn by session/cancel, or answered `cancelled` by the client: the turn is cancelled.
  if (signal.aborted || answer.outcome.outcome === 'cancelled') {
    await session.idle('cancelled');
    return;
  }
  const reply = await session.agentMessage();
  await reply.chunk({
    type: 'text',
    text: allowed ? 'Permission granted: done.' : 'Permission refused: nothing written.',
  });
  await session.idle('end_turn');
}
