import type { TranscriptEntry } from '../transcript/parse.js';
import type { Finding } from './types.js';

/**
 * The verdict of `agent.responds` on one scenario: a finding when the scenario stopped through
 * the agent's fault (it exited, or left a setup request unanswered), pinned to the last message.
 * The live run and the lint of its recording both decide it here, from the same abort.
 */
export function agentRespondsFindings(
  abort: { message: string; agentFault: boolean } | undefined,
  entries: readonly TranscriptEntry[],
  scenario: string,
): Finding[] {
  if (!abort?.agentFault) return [];
  const last = entries.at(-1);
  return [
    {
      ruleId: 'agent.responds',
      scenario,
      message: abort.message,
      ...(last ? { index: last.index, line: last.line } : {}),
    },
  ];
}
