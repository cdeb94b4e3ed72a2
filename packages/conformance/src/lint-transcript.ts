import { agentRespondsFindings } from './rules/agent-responds.js';
import { combineOutcomes, evaluateTranscript, type TranscriptOutcomes } from './rules/evaluate.js';
import type { Finding, RuleResult } from './rules/types.js';
import {
  type AbortNote,
  type ExitNote,
  KIT_SOURCE,
  type RecordingNote,
  type UnansweredNote,
} from './transcript/notes.js';
import { parseTranscript } from './transcript/parse.js';

/** What {@link lintTranscript} found. */
export interface LintResult {
  /** Every rule with its verdict on this transcript. */
  results: RuleResult[];
  /** All findings, ordered by line. */
  findings: Finding[];
  /** Whether any mandatory rule failed. */
  failed: boolean;
  /** Number of messages read. */
  messages: number;
  /**
   * What a recording of the live kit (`acp-kit conformance --record`) says beside its messages:
   * the scenario, how the agent process ended (when it ended on its own), and the requests it
   * never answered. Absent for other transcripts.
   */
  recording?: {
    scenario: string;
    exit?: Omit<ExitNote, 'note'>;
    unanswered: Omit<UnansweredNote, 'note'>[];
  };
}

const notesOf = <K extends RecordingNote['note']>(
  notes: readonly { note: RecordingNote }[],
  kind: K,
): Extract<RecordingNote, { note: K }>[] =>
  notes
    .map((line) => line.note)
    .filter((note): note is Extract<RecordingNote, { note: K }> => note.note === kind);

const withoutKind = <T extends { note: string }>({ note: _kind, ...rest }: T): Omit<T, 'note'> => rest;

/**
 * Lints one connection's transcript (ndjson text in the acp-kit transcript format) against every
 * rule a transcript can show, plus schema validation of every message. Runs anywhere — no Node APIs.
 *
 * A recording of the live kit (its notes name the scenario) is judged as the live run judged it:
 * with the live run's timing rules, without judging the kit's own deliberately invalid messages,
 * and with `agent.responds` decided from the recorded abort — so a crashed agent's recording
 * fails the same mandatory rules as the run that recorded it.
 */
export function lintTranscript(text: string): LintResult {
  const { entries, problems, notes } = parseTranscript(text);
  const header = notesOf(notes, 'recording').find((note) => note.source === KIT_SOURCE);
  const outcomes: TranscriptOutcomes = evaluateTranscript(
    entries,
    header ? { live: true, scenario: header.scenario } : { live: false },
  );
  outcomes.set('transcript.format', {
    applicable: true,
    findings: problems.map((problem) => ({
      ruleId: 'transcript.format',
      line: problem.line,
      message: problem.message,
    })),
  });
  if (header) {
    const abort: AbortNote | undefined = notesOf(notes, 'abort')[0];
    outcomes.set('agent.responds', {
      applicable: true,
      findings: agentRespondsFindings(abort, entries, header.scenario),
    });
    outcomes.set('client-message.schema', {
      applicable: false,
      reason: 'a kit recording: the live kit sends invalid prompts on purpose',
    });
  } else {
    outcomes.set('agent.responds', { applicable: false, reason: 'checked by live runs only' });
  }
  const results = combineOutcomes([outcomes]);
  const findings = results.flatMap((result) => result.findings).sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const failed = results.some((result) => result.status === 'fail' && result.tier === 'mandatory');
  const exit = notesOf(notes, 'exit')[0];
  return {
    results,
    findings,
    failed,
    messages: entries.length,
    ...(header
      ? {
          recording: {
            scenario: header.scenario,
            ...(exit ? { exit: withoutKind(exit) } : {}),
            unanswered: notesOf(notes, 'unanswered').map(withoutKind),
          },
        }
      : {}),
  };
}
