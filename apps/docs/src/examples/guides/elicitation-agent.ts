import { randomUUID } from 'node:crypto';
import type { CreateElicitationResponse, ElicitationAcceptAction } from '@acp-kit/schema';
import { Agent, type AgentSession, type ClientPeer } from '@acp-kit/sdk';

/** An agent that asks its user: `/deploy` through a form, `/sign-in` by sending them to a URL. */
export function createAskingAgent(): Agent {
  return new Agent({
    info: { name: 'asking-agent', version: '1.0.0' },
    async onPrompt(prompt, { session, client }) {
      await prompt.insert();
      const first = prompt.content[0];
      const text = first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
      void work(session, client, text);
    },
  });
}

async function work(session: AgentSession, client: ClientPeer, text: string): Promise<void> {
  await session.running();
  const reply = await session.agentMessage();
  if (text === '/deploy') {
    // The session reports requires_action while the question is open. The answer
    // is { action: 'cancel' } if session/cancel withdraws it or no client can ask.
    const answer = await session.elicit(
      {
        mode: 'form',
        message: 'Where should this be deployed?',
        requestedSchema: {
          type: 'object',
          properties: { environment: { type: 'string', enum: ['staging', 'production'] } },
          required: ['environment'],
        },
      },
      { client },
    );
    const where = field(answer, 'environment');
    await reply.chunk({
      type: 'text',
      text: where ? `Deploying to ${where}.` : `Not deploying (${answer.action}).`,
    });
  } else if (text === '/sign-in') {
    const elicitationId = randomUUID();
    const answer = await session.elicit(
      { mode: 'url', elicitationId, message: 'Sign in to Acme', url: 'https://auth.example.com/device' },
      { client },
    );
    // Accepting a URL elicitation means the user went there; the flow finishes
    // later, and elicitation/complete tells the client it can close what it shows.
    if (answer.action === 'accept') await session.completeElicitation(elicitationId);
    await reply.chunk({ type: 'text', text: answer.action === 'accept' ? 'Signed in.' : 'Not signed in.' });
  }
  await session.idle(session.signal.aborted ? 'cancelled' : 'end_turn');
}

/** A field of an accepted form; decline, cancel (or an action from a newer client) have none. */
function field(answer: CreateElicitationResponse, name: string): unknown {
  if (answer.action !== 'accept') return undefined;
  return (answer as ElicitationAcceptAction).content?.[name];
}
