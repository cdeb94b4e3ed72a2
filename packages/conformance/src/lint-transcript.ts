import { combineOutcomes, evaluateTranscript, type TranscriptOutcomes } from './rules/evaluate.js';
import type { Finding, RuleResult } from './rules/types.js';
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
}

/**
 * Lints one connection's transcript (ndjson text in the acp-kit transcript format) against every
 * rule a transcript can show, plus schema validation of every message. Runs anywhere — no Node APIs.
 */
export function lintTranscript(text: string): LintResult {
  const { entries, problems } = parseTranscript(text);
  const outcomes: TranscriptOutcomes = evaluateTranscript(entries, { live: false });
  outcomes.set('transcript.format', {
    applicable: true,
    findings: problems.map((problem) => ({
      ruleId: 'transcript.format',
      line: problem.line,
      message: problem.message,
    })),
  });
  outcomes.set('agent.responds', { applicable: false, reason: 'checked by live runs only' });
  const results = combineOutcomes([outcomes]);
  const findings = results.flatMap((result) => result.findings).sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const failed = results.some((result) => result.status === 'fail' && result.tier === 'mandatory');
  return { results, findings, failed, messages: entries.length };
}
