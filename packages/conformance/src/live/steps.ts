import { reportOf, attributeUserMessages } from '../analysis/attribution.js';
import { asRecord } from '../analysis/envelope.js';
import { type Analysis, endsWork, liveUpdates, stateOf } from '../analysis/model.js';
import { type AgentProcess, type Reply, ScenarioAbort } from './agent-process.js';
import { NotV2Agent } from './not-v2-agent.js';

/** The name and version the kit sends in initialize. */
export const KIT_INFO = { name: 'acp-kit-conformance', version: '0.0.0' } as const;

/**
 * Sends initialize; aborts the scenario (blaming the agent) unless it succeeds, and stops the run
 * ({@link NotV2Agent}) when the agent answers with an integer protocol version other than 2. The
 * client capabilities are `{}` unless given.
 */
export async function initialize(
  agent: AgentProcess,
  capabilities: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const reply = await agent.request('initialize', { protocolVersion: 2, info: KIT_INFO, capabilities });
  if (!reply.ok) throw new ScenarioAbort(`initialize failed: ${describeReply(reply)}`, true);
  const result = asRecord(reply.result) ?? {};
  const version = result.protocolVersion;
  if (typeof version === 'number' && Number.isInteger(version) && version !== 2)
    throw new NotV2Agent(version);
  return result;
}

/** Creates a session; aborts the scenario (blaming the agent) unless a sessionId comes back. */
export async function newSession(agent: AgentProcess, cwd: string): Promise<string> {
  const reply = await agent.request('session/new', { cwd, mcpServers: [] });
  const sessionId = reply.ok ? asRecord(reply.result)?.sessionId : undefined;
  if (typeof sessionId !== 'string' || sessionId === '') {
    throw new ScenarioAbort(`session/new did not return a sessionId: ${describeReply(reply)}`, true);
  }
  return sessionId;
}

/** A text prompt's content. */
export function text(value: string): { type: 'text'; text: string }[] {
  return [{ type: 'text', text: value }];
}

/** Sends a prompt without waiting for its answer. */
export function prompt(agent: AgentProcess, sessionId: string, content: unknown): Promise<Reply> {
  return agent.request('session/prompt', { sessionId, prompt: content });
}

/**
 * True once a session has settled: it is idle, and an idle with a stopReason that closed a running
 * period came after the last place an accepted prompt was inserted (its user message, or else its
 * response). Requiring the closed running period keeps an agent that reports idle too early from
 * hurrying the scenario into its next step while the turn is still streaming.
 */
export function settled(analysis: Analysis, sessionId: string): boolean {
  const states = liveUpdates(analysis, sessionId).filter((update) => stateOf(update) !== undefined);
  const last = states.at(-1);
  if (!last || stateOf(last) !== 'idle') return false;
  let open = false;
  let lastClose: number | undefined;
  for (const update of states) {
    const state = stateOf(update);
    if (state === 'running' || state === 'requires_action') open = true;
    else if (endsWork(update) && open) {
      open = false;
      lastClose = update.index;
    }
  }
  if (lastClose === undefined) return false;
  const attribution = attributeUserMessages(analysis);
  for (const prompt of analysis.prompts) {
    if (prompt.sessionId !== sessionId) continue;
    if (prompt.status === 'unanswered') return false;
    if (prompt.status !== 'accepted') continue;
    const anchor = reportOf(analysis, attribution, prompt)?.index ?? prompt.request.response!.index;
    if (anchor > lastClose) return false;
  }
  return true;
}

/** Waits for a session to settle; false on timeout. */
export function waitSettled(agent: AgentProcess, sessionId: string): Promise<boolean> {
  return agent.waitFor((analysis) => settled(analysis, sessionId));
}

/** A reply in words, for abort messages. */
export function describeReply(reply: Reply): string {
  if (reply.ok) return `result ${JSON.stringify(reply.result)}`;
  if (reply.error) return `error ${reply.error.code} ${JSON.stringify(reply.error.message)}`;
  return reply.missing;
}

/** A prompt of `words` words, long enough that streaming a reply to it takes a while. */
export function longText(words: number): string {
  return Array.from({ length: words }, (_, index) => `word${index + 1}`).join(' ');
}
