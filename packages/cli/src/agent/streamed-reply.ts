import type { AgentSession } from '@acp-kit/sdk';
import { replyTo } from './reply-model.js';
import { optionValue, pause as sleep } from './session-features.js';

/**
 * The offline model's answer to a plain prompt: `agent_message_chunk`s `delay` ms apart, then
 * `idle` with usage — `end_turn`, or `cancelled` when `session/cancel` stopped the stream.
 */
export async function streamedReply(
  session: AgentSession,
  text: string,
  delay: number,
  signal: AbortSignal,
): Promise<void> {
  const model = optionValue(await session.configOptions(), 'model', 'echo');
  const { pieces, inputTokens, outputTokens } = replyTo(text, model === 'echo-twice' ? 2 : 1);
  const reply = await session.agentMessage();
  let sent = 0;
  for (const piece of pieces) {
    if (signal.aborted) break;
    await reply.chunk({ type: 'text', text: piece });
    sent += 1;
    await sleep(delay, signal);
  }
  const usage = { totalTokens: inputTokens + sent, inputTokens, outputTokens: sent };
  await session.idle(signal.aborted || sent < outputTokens ? 'cancelled' : 'end_turn', usage);
}
