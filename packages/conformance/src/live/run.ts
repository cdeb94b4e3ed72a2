import type { RuleId } from '../rules/catalog.js';
import { combineOutcomes, evaluateTranscript, type TranscriptOutcomes } from '../rules/evaluate.js';
import { agentRespondsFindings } from '../rules/agent-responds.js';
import { AgentProcess, ScenarioAbort } from './agent-process.js';
import { NotV2Agent } from './not-v2-agent.js';
import { recordingText } from './recording.js';
import type { ConformanceReport, ScenarioReport } from './report.js';
import { SCENARIOS, type Scenario, type ScenarioNotes } from './scenarios.js';

/** Progress of a run, for a caller that shows it. */
export type ConformanceProgress =
  | { phase: 'start'; scenario: string; description: string; index: number; total: number }
  | { phase: 'end'; scenario: string; status: ScenarioReport['status']; note?: string; durationMs: number };

/** Options for {@link runConformance}. */
export interface ConformanceOptions {
  /** The agent's executable. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Longest wait for any one answer or condition, in ms. Default 10 000. */
  timeoutMs?: number;
  /**
   * Longest wait for the answer to initialize, which includes starting the process (slow on a
   * loaded machine, behind `npx` or a TypeScript loader, or for agents that load a lot). Default:
   * the larger of `timeoutMs` and 30 000.
   */
  startupTimeoutMs?: number;
  /** Working directory of the agent process, also sent as the sessions' cwd. Default: process.cwd(). */
  cwd?: string;
  /** Environment of the agent process. Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Receives each scenario's transcript (ndjson) when the scenario ends. */
  record?: (scenario: string, transcript: string) => void | Promise<void>;
  /** Receives progress events. */
  onProgress?: (event: ConformanceProgress) => void;
  /**
   * A prompt that makes the agent start background work (work that outlives its turn, listed in
   * `state_update.background`), e.g. `/background 2` for `acp-kit agent`. Without it the background
   * scenario is skipped: the kit cannot know how to ask an agent for such work.
   */
  backgroundPrompt?: string;
  /**
   * A prompt that makes the agent start a subagent (upstream's unstable surface), e.g.
   * `/subagent count the files` for `acp-kit agent --unstable`. Without it the subagent scenario
   * is skipped; the subagent and session-message rules still judge whatever other scenarios show.
   */
  subagentPrompt?: string;
  /** Run only these scenarios (by name). Default: all. */
  scenarios?: readonly string[];
}

/**
 * The least wait for an agent's first answer. `npx tsx first-agent.ts`, the getting-started page's
 * agent, took more than 10 s to answer on a loaded machine (CI, with other suites running).
 */
const STARTUP_TIMEOUT_MS = 30_000;

/** Names of the scenarios a run goes through, in order. */
export const SCENARIO_NAMES: readonly string[] = SCENARIOS.map((scenario) => scenario.name);

/**
 * Checks an ACP v2 agent against the rule catalog. Each scenario launches a fresh agent process
 * over stdio, drives it, records the transcript and evaluates the rules on it; the verdicts are
 * then folded into one report. Never throws for a misbehaving agent: that is what the report is for.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const cwd = options.cwd ?? process.cwd();
  const wanted = SCENARIOS.filter(
    (scenario) => !options.scenarios || options.scenarios.includes(scenario.name),
  );
  const selected = wanted.filter((scenario) => !scenario.requires || options[scenario.requires.setting]);
  const all: TranscriptOutcomes[] = wanted
    .filter((scenario) => !selected.includes(scenario))
    .map(
      (scenario) =>
        new Map(scenario.covers.map((id) => [id, { applicable: false, reason: scenario.requires!.reason }])),
    );
  const scenarios: ScenarioReport[] = [];

  for (const [index, scenario] of selected.entries()) {
    options.onProgress?.({
      phase: 'start',
      scenario: scenario.name,
      description: scenario.description,
      index,
      total: selected.length,
    });
    const { outcomes, report, transcript, notV2 } = await runScenario(scenario, options, cwd, timeoutMs);
    await options.record?.(scenario.name, transcript);
    if (notV2) return notV2Report(options, started, notV2, report);
    all.push(outcomes);
    scenarios.push(report);
    options.onProgress?.({
      phase: 'end',
      scenario: scenario.name,
      status: report.status,
      ...(report.note ? { note: report.note } : {}),
      durationMs: report.durationMs,
    });
  }

  const lintOnly: TranscriptOutcomes = new Map([
    [
      'client-message.schema',
      { applicable: false, reason: 'lint only: the live kit sends invalid prompts on purpose' },
    ],
    [
      'transcript.format',
      { applicable: false, reason: 'lint only: live transcripts are written by the kit' },
    ],
    [
      'nes.suggest.context-requested',
      { applicable: false, reason: 'lint only: it judges the client, which is the kit in a live run' },
    ],
  ]);
  const results = combineOutcomes([...all, lintOnly]);
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const result of results) counts[result.status] += 1;
  return {
    agent: { command: options.command, args: [...(options.args ?? [])] },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    passed: !results.some((result) => result.status === 'fail' && result.tier === 'mandatory'),
    counts,
    results,
    scenarios,
  };
}

async function runScenario(
  scenario: Scenario,
  options: ConformanceOptions,
  cwd: string,
  timeoutMs: number,
): Promise<{ outcomes: TranscriptOutcomes; report: ScenarioReport; transcript: string; notV2?: NotV2Agent }> {
  const started = Date.now();
  const agent = new AgentProcess({
    command: options.command,
    args: options.args ?? [],
    cwd,
    ...(options.env ? { env: options.env } : {}),
    timeoutMs,
    startupTimeoutMs: options.startupTimeoutMs ?? Math.max(timeoutMs, STARTUP_TIMEOUT_MS),
  });
  let notes: ScenarioNotes = {};
  let abort: ScenarioAbort | undefined;
  try {
    notes = await scenario.run(agent, cwd, {
      ...(options.backgroundPrompt !== undefined ? { backgroundPrompt: options.backgroundPrompt } : {}),
      ...(options.subagentPrompt !== undefined ? { subagentPrompt: options.subagentPrompt } : {}),
    });
  } catch (error) {
    abort = error instanceof ScenarioAbort ? error : new ScenarioAbort(String(error), false);
  }
  // An exit the kit did not cause (the agent crashed or quit) is part of the recording.
  const ownExit = agent.exit;
  await agent.close();

  const entries = agent.entries;
  const outcomes = evaluateTranscript(entries, { live: true, scenario: scenario.name });
  // Only the scenario built for a rule explains why it was skipped; elsewhere silence is normal.
  for (const [id, outcome] of outcomes) {
    if (!outcome.applicable && !scenario.covers.includes(id)) outcomes.delete(id);
  }
  for (const [id, reason] of Object.entries(notes.skipped ?? {}) as [RuleId, string][]) {
    const outcome = outcomes.get(id);
    if (!outcome?.applicable) outcomes.set(id, { applicable: false, reason });
  }
  outcomes.set('agent.responds', {
    applicable: true,
    findings: agentRespondsFindings(abort, entries, scenario.name),
  });

  const failed = [...outcomes.values()].some((outcome) => outcome.applicable && outcome.findings.length > 0);
  const note = abort?.message ?? notes.incomplete;
  const status: ScenarioReport['status'] = abort || notes.incomplete ? 'aborted' : failed ? 'failed' : 'ok';
  const report: ScenarioReport = {
    name: scenario.name,
    description: scenario.description,
    status,
    durationMs: Date.now() - started,
    ...(note ? { note } : {}),
  };
  if (status !== 'ok') {
    report.transcript = [...agent.lines];
    if (agent.stderr) report.stderr = agent.stderr;
  }
  const transcript = recordingText(agent.transcriptText(), entries, {
    scenario: scenario.name,
    ...(abort ? { abort: { message: abort.message, agentFault: abort.agentFault } } : {}),
    ...(ownExit ? { exit: { code: ownExit.code, signal: ownExit.signal } } : {}),
    stderr: agent.stderr,
  });
  return { outcomes, report, transcript, ...(abort instanceof NotV2Agent ? { notV2: abort } : {}) };
}

/**
 * The report of a run that stopped at the first `initialize` because the agent speaks another
 * protocol version: no rule is judged (they are v2's), and the report says what to run instead.
 */
function notV2Report(
  options: ConformanceOptions,
  started: number,
  notV2: NotV2Agent,
  scenario: ScenarioReport,
): ConformanceReport {
  const reason = `not checked: ${notV2.message}`;
  const results = combineOutcomes([]).map((result) => ({ ...result, reason }));
  return {
    agent: { command: options.command, args: [...(options.args ?? [])] },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    passed: false,
    counts: { pass: 0, fail: 0, skip: results.length },
    results,
    scenarios: [scenario],
    otherVersion: {
      protocolVersion: notV2.protocolVersion,
      ...(notV2.protocolVersion === 1 ? { suggestion: bridgeSuggestion(options) } : {}),
    },
  };
}

/** The command that checks the same agent through the v1 → v2 bridge. */
function bridgeSuggestion(options: ConformanceOptions): string {
  const quote = (word: string): string =>
    /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
  const agent = [options.command, ...(options.args ?? [])].map(quote).join(' ');
  return `acp-kit conformance -- acp-kit bridge --serve v2 -- ${agent}`;
}
