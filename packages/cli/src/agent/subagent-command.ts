import type { AgentSession } from '@acp-kit/sdk';
import { pause } from './session-features.js';

/** How long each of a subagent's steps takes, in ms. */
const STEP_MS = 50;
/** How many steps a subagent reports. */
const STEPS = 3;

/**
 * `/subagent <task>` (upstream's unstable subagents draft): starts a cancellable child session
 * titled after the task, announced on this session with `subagent_update`; the child reports its
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
