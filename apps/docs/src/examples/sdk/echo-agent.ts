import type { ContentBlock } from '@acp-kit/schema';
import { Agent, type AgentSession } from '@acp-kit/sdk';

/** Echoes every prompt back as a streamed agent message. */
export function createEchoAgent(): Agent {
  return new Agent({
    info: { name: 'echo-agent', version: '1.0.0' },
    async onPrompt(prompt, { session }) {
      if (!prompt.content.some((block) => block.type === 'text')) {
        // Not inserted: the client gets this error, no user message.
        prompt.reject({ code: -32602, message: 'This agent only reads text.' });
        return;
      }
      // Inserting answers the request: the user message is retained
      // and reported first, then the client gets { messageId }.
      await prompt.insert();
      // The turn goes on after the response; don't hold the handler.
      void reply(session, prompt.content);
    },
  });
}

async function reply(session: AgentSession, content: readonly ContentBlock[]): Promise<void> {
  await session.running();
  const message = await session.agentMessage();
  for (const block of content) {
    if (session.signal.aborted) break; // session/cancel
    await message.chunk(block);
  }
  await session.idle(session.signal.aborted ? 'cancelled' : 'end_turn');
}
