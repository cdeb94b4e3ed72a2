import type { Agent, AgentSession, PendingPrompt } from '@acp-kit/sdk';
import { promptText } from './reply-model.js';

/**
 * `/status`, a live-only local command: inserted with `retain: false`, answered, never replayed.
 * With `unstable` it also reports the session's system prompt and where the `main` provider routes.
 */
export async function statusCommand(
  session: AgentSession,
  prompt: PendingPrompt,
  messageId: string,
  { agent, notes, unstable }: { agent: Agent; notes: ReadonlyMap<string, string[]>; unstable: boolean },
): Promise<void> {
  await prompt.insert({ retain: false, messageId });
  await session.running();
  const reply = await session.agentMessage({ retain: false });
  const noteCount = notes.get(session.id)?.length ?? 0;
  // System prompts and providers are unstable: a stable-only agent reports neither.
  let unstableParts = '';
  if (unstable) {
    const systemPrompt = await session.systemPrompt();
    const main = agent.providers?.route('main');
    const routed = main ? `, model requests to ${main.apiType} at ${main.baseUrl}` : '';
    const instructions =
      systemPrompt === null
        ? 'no system prompt'
        : `system prompt: ${systemPrompt.mode}, ${promptText(systemPrompt.content).length} character(s)`;
    unstableParts = `, ${instructions}${routed}`;
  }
  await reply.chunk({
    type: 'text',
    text: `Session ${session.id}: ${noteCount} note(s), ${session.attachedCount} client(s) attached${unstableParts}.`,
  });
  await session.idle('end_turn');
}

/** `/note <text>`, a retained local command: replayed later under its ID, never executed again. */
export async function noteCommand(
  session: AgentSession,
  prompt: PendingPrompt,
  messageId: string,
  text: string,
  notes: Map<string, string[]>,
): Promise<void> {
  await prompt.insert({ messageId });
  await session.running();
  const list = notes.get(session.id) ?? [];
  list.push(text.slice('/note '.length));
  notes.set(session.id, list);
  const reply = await session.agentMessage();
  await reply.chunk({ type: 'text', text: `Noted (${list.length}).` });
  await session.idle('end_turn');
}
