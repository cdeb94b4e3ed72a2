import { Agent } from '@acp-kit/sdk';

/**
 * An agent that hands each prompt to a subagent (an unstable feature: upstream's subagents draft).
 * The child gets its own session, announced to the parent's clients before any of its updates;
 * the client may cancel the child's work, and sees the child's state mirrored on the parent.
 */
export function createDelegatingAgent(): Agent {
  return new Agent({
    info: { name: 'delegating-agent', version: '1.0.0' },
    unstable: true, // subagents are upstream's unstable surface: opt in
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const task = prompt.content.map((block) => (block.type === 'text' ? block.text : '')).join(' ');
      const child = await session.subagent({
        title: 'Researcher',
        description: `Looks into: ${task}`,
        cancellable: true,
      });
      // The child reports its own turn, under its own session ID.
      await child.running();
      const notes = await child.agentMessage();
      await notes.chunk({ type: 'text', text: `Findings on ${task}.` });
      await child.idle(child.signal.aborted ? 'cancelled' : 'end_turn');
      // The parent sums up and ends its turn.
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: `The researcher is done with ${task}.` });
      await session.idle('end_turn');
    },
  });
}
