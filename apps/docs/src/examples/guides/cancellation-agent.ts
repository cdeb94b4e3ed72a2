import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionId } from '@acp-kit/schema';
import { Agent, type AgentSession } from '@acp-kit/sdk';

/** Streams a long answer word by word, one turn at a time per session; stops when cancelled. */
export function createStreamingAgent(): Agent {
  const busy = new Map<SessionId, Promise<void>>();
  return new Agent({
    info: { name: 'streaming-agent', version: '1.0.0' },
    async onPrompt(prompt, { session }) {
      // A prompt that arrives during a turn waits, not inserted: the client's request stays open.
      const previous = busy.get(session.id) ?? Promise.resolve();
      let done = () => {};
      busy.set(session.id, new Promise<void>((resolve) => (done = resolve)));
      await previous;
      // Withdrawn while it waited ($/cancel_request): the SDK already answered -32800.
      if (prompt.state !== 'pending') return done();
      await prompt.insert();
      const words = prompt.content.flatMap((b) =>
        b.type === 'text' && typeof b.text === 'string' ? b.text.split(' ') : [],
      );
      void stream(session, words).finally(done);
    },
  });
}

async function stream(session: AgentSession, words: string[]): Promise<void> {
  await session.running();
  const reply = await session.agentMessage();
  for (const word of words) {
    // session/cancel aborts the turn's signal: keep what was said, then stop.
    if (session.signal.aborted) break;
    await reply.chunk({ type: 'text', text: `${word} ` });
    await sleep(20);
  }
  await session.idle(session.signal.aborted ? 'cancelled' : 'end_turn');
}
