import { Agent, type AgentSession, Connection, stdioTransport } from '@acp-kit/sdk';

const agent = new Agent({
  info: { name: 'first-agent', version: '0.1.0' },
  async onPrompt(prompt, { session }) {
    // Inserting the user message is what answers session/prompt (with its messageId).
    await prompt.insert();
    // The work goes on after the response: don't hold the handler.
    // ContentBlock is an open union (blocks of unknown types are kept, not rejected), so comparing
    // `type` alone does not narrow `text` to a string: check the field too.
    const words = prompt.content.flatMap((b) =>
      b.type === 'text' && typeof b.text === 'string' ? b.text.split(/\s+/) : [],
    );
    void answer(session, words.filter(Boolean).length);
  },
});

async function answer(session: AgentSession, words: number): Promise<void> {
  await session.running();
  const reply = await session.agentMessage();
  await reply.chunk({ type: 'text', text: `You said ${words} word(s).` });
  await session.idle('end_turn');
}

// ACP v2 over this process's stdin/stdout.
agent.serve(new Connection(stdioTransport()));
