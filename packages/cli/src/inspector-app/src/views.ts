/**
 * What the page shows, decided from plain data: no DOM, no clock, no network. Each function takes
 * a slice of the page's state and returns the text, tone or verdict the render functions then
 * draw, so every decision here is unit-tested without a browser (test/inspect/inspector-views.test.ts).
 */
import type { Finding, LintResult } from '@acp-kit/conformance/lint';
import type { SessionStateView } from '@acp-kit/sdk/client';

/** A status colour of the page: each has a colour of its own in both themes (see app.css). */
export type Tone = 'good' | 'bad' | 'warn' | 'busy' | 'muted';

/**
 * A session's state line. The stop reason is the last turn's: shown beside `idle` only, since
 * while a later turn runs or waits it describes a turn that is over (`requires_action (end_turn)`
 * read as if the waiting turn had ended).
 */
export function stateLine(state: SessionStateView): string {
  const reason = state.state === 'idle' && state.stopReason ? ` (${state.stopReason})` : '';
  return `state: ${state.state}${reason}, turns: ${state.completedTurns}, ${state.connection}`;
}

/** The tone of a session's work state. */
export function stateTone(state: SessionStateView): Tone {
  if (state.connection === 'disconnected') return 'bad';
  if (state.state === 'requires_action') return 'warn';
  if (state.state === 'running') return 'busy';
  if (state.state === 'idle') return 'good';
  return 'muted';
}

/**
 * Whether a finding is about something that has not happened *yet* — a turn not ended, a prompt
 * not answered — rather than something that happened wrongly. A finished transcript has its
 * verdict; a live one may still see the idle or the answer arrive.
 */
export function awaitsMore(finding: Finding): boolean {
  return (
    (finding.actual ?? '').includes('before the transcript ends') ||
    /was never answered$/.test(finding.message)
  );
}

/** The lint as the page shows it: what is broken, what is only still open, and the summary's words and tone. */
export interface LintView {
  /** Rules broken, by id. */
  readonly broken: readonly string[];
  /** Rules whose every finding waits on traffic still to come (live only), by id. */
  readonly open: readonly string[];
  readonly text: string;
  readonly tone: Tone;
  /** Whether a finding is shown on its row (open ones are not, while live). */
  shows(finding: Finding): boolean;
}

/**
 * The lint's verdict for the page. `live`: the connection is still open, so a turn that has not
 * ended yet is not judged as if it never would (a permission being asked is not a broken
 * `state.work-ends`); once the agent ended, or for an imported file, every finding counts.
 */
export function lintView(lint: LintResult, live: boolean): LintView {
  const shows = (finding: Finding): boolean => !live || !awaitsMore(finding);
  const broken: string[] = [];
  const open: string[] = [];
  for (const result of lint.results) {
    if (result.status !== 'fail') continue;
    if (result.findings.some(shows)) broken.push(result.id);
    else open.push(result.id);
  }
  const head = `lint: ${lint.messages} message(s), `;
  const text =
    broken.length === 0
      ? `${head}no rule broken so far${open.length > 0 ? ` (a turn is still open: ${open.join(', ')} judged when it ends)` : ''}`
      : `${head}broken: ${broken.join(', ')}`;
  return { broken, open, text, tone: broken.length === 0 ? 'good' : 'bad', shows };
}

/** Why the prompt box cannot take a prompt yet, or undefined when it can. */
export function promptBlocked(input: {
  offline: boolean;
  agentRunning: boolean;
  sessionId: string;
  sessionConnected: boolean;
}): string | undefined {
  if (input.offline) return 'An imported transcript is shown: go back to live to prompt.';
  if (!input.agentRunning) return 'The agent is not running: restart it to prompt.';
  if (input.sessionId === '') return 'Start a session to prompt (the Start session button).';
  if (!input.sessionConnected) return 'This session is not open on the current connection: resume it.';
  return undefined;
}

/** What the Start session button does now: initialize first unless the agent is initialized with these settings. */
export function startPlan(
  initialized: { version: 1 | 2; capabilities: string } | undefined,
  chosen: { version: 1 | 2; capabilities: string },
): ('initialize' | 'session/new')[] {
  const same =
    initialized !== undefined &&
    initialized.version === chosen.version &&
    initialized.capabilities === chosen.capabilities;
  return same ? ['session/new'] : ['initialize', 'session/new'];
}

/** The agent process line: its words and tone. */
export function agentStatus(
  agent:
    | { phase: 'waiting' }
    | { phase: 'running'; run: number; description: string }
    | { phase: 'ended'; run: number; reason: string; code: number | null },
): { text: string; state: 'waiting' | 'running' | 'ended'; tone: Tone } {
  if (agent.phase === 'waiting') return { text: 'agent not started', state: 'waiting', tone: 'muted' };
  if (agent.phase === 'running')
    return { text: `agent run ${agent.run} started: ${agent.description}`, state: 'running', tone: 'good' };
  return {
    text: `agent run ${agent.run} ended: ${agent.reason}${agent.code === null ? '' : ` (exit code ${agent.code})`}`,
    state: 'ended',
    tone: 'bad',
  };
}

/** How long a message in the traffic table may be before its cell is clipped (with a control to expand it). */
export const CLIP_CHARS = 240;

/** Whether a traffic row's message is clipped until expanded. */
export function clipped(text: string): boolean {
  return text.length > CLIP_CHARS || text.includes('\n');
}

/**
 * What the second-client panel learns from the traffic of its own connection, so a reloaded page
 * (which replays that traffic) knows what the live one knew: the session it attached to is the one
 * a successful `session/resume` (or `session/new`) of that connection answered.
 */
export function attachedSession(
  row: { dir: string; kind: string; method: string; sessionId: string },
  previous: string,
): string {
  if (row.dir !== 'agent->client' || row.kind !== 'response') return previous;
  if (row.method === 'session/resume' || row.method === 'session/new' || row.method === 'session/load')
    return row.sessionId || previous;
  return previous;
}

/** A `/help` the session's agent does not offer as a command: the page answers it with the session's commands. */
export function localHelp(
  text: string,
  commands: readonly { name: string; description: string }[],
): string | undefined {
  if (text.trim() !== '/help' || commands.some((command) => command.name === 'help')) return undefined;
  if (commands.length === 0)
    return 'This agent offers no slash commands for this session (nothing was sent; /help is not one of its commands).';
  return `This session's commands (type / to pick one; nothing was sent): ${commands
    .map((command) => `/${command.name}${command.description ? ` — ${command.description}` : ''}`)
    .join('; ')}`;
}
