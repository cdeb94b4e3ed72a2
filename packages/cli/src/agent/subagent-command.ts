import type { AgentSession } from '@acp-kit/sdk';
import { pause } from './session-features.js';

/** How long each of a subagent's steps takes, in ms. */
const STEP_MS = 50;
/** How many steps a subagent reports. */
const STEPS = 3;

/**
 * The parent hands the task to the child as an inter-session message (`session_message`, unstable),
 * one copy in each transcript, each under its own session's message ID and naming the other's: the
 * child's copy streams in (reset, then a chunk), the parent's is whole; the child's copy learns the
 * parent's ID last (the references may come after the message started).
 */
async function handOver(parent: AgentSession, child: AgentSession, task: string): Promise<void> {
  const text = { type: 'text' as const, text: `Please work on: ${task}` };
  const received = await child.reserveMessageId();
  await child.update({
    sessionUpdate: 'session_message',
    messageId: received,
    senderSessionId: parent.id,
    content: [],
  });
  await child.update({ sessionUpdate: 'session_message_chunk', messageId: received, content: text });
  const sent = await parent.reserveMessageId();
  await parent.update({
    sessionUpdate: 'session_message',
    messageId: sent,
    recipientSessionId: child.id,
    recipientMessageId: received,
    content: [text],
  });
  await child.update({ sessionUpdate: 'session_message', messageId: received, senderMessageId: sent });
}

/**
 * `/subagent <task>` (upstream's unstable subagents draft): starts a cancellable child session
 * titled after the task, announced on this session with `subagent_update`, and hands it the task as
 * a session message (`session_message` in both transcripts); the child reports its
 * own turn (`running`, a message streamed step by step, `idle`/`end_turn`, or `cancelled` when the
 * client cancels the child), which the SDK mirrors on the parent; the parent then says how the
 * child ended and ends its turn. Deterministic: the child's text depends only on the task.
 */
export async function subagentCommand(
  session: AgentSession,
  task: string,
  signal: AbortSignal,
): Promise<void> {
  const name = task.length > 0 ? task : 'a task';
  const child = await session.subagent({
    title: `Subagent: ${name}`,
    description: `Works on "${name}" in ${STEPS} steps`,
    cancellable: true,
  });
  const started = await session.agentMessage();
  await started.chunk({ type: 'text', text: `Started subagent ${child.id} for "${name}".` });
  await handOver(session, child, name);
  await child.running();
  const work = await child.agentMessage();
  for (let step = 1; step <= STEPS && !child.signal.aborted && !signal.aborted; step++) {
    await work.chunk({ type: 'text', text: `Step ${step} of ${STEPS}: ${name}.\n` });
    await pause(STEP_MS, child.signal);
  }
  const outcome = child.signal.aborted || signal.aborted ? 'cancelled' : 'end_turn';
  await child.idle(outcome);
  const done = await session.agentMessage();
  await done.chunk({
    type: 'text',
    text: outcome === 'end_turn' ? `Subagent ${child.id} finished.` : `Subagent ${child.id} was cancelled.`,
  });
  await session.idle(signal.aborted ? 'cancelled' : 'end_turn');
}
