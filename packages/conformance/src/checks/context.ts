import { type Attribution, attributeUserMessages } from '../analysis/attribution.js';
import { type Analysis, analyze } from '../analysis/model.js';
import type { CheckOutcome, Finding } from '../rules/types.js';
import type { TranscriptEntry } from '../transcript/parse.js';

/** What every check receives: the analysis of one transcript and the user-message attribution. */
export interface CheckContext {
  analysis: Analysis;
  attribution: Attribution;
  /** True in live runs; some rules only apply to one mode. */
  live: boolean;
}

/** A check's raw finding, before the rule ID and line number are attached. */
export type RawFinding = Omit<Finding, 'ruleId' | 'line' | 'scenario'>;

/** Builds the context for a transcript. */
export function checkContext(entries: readonly TranscriptEntry[], live: boolean): CheckContext {
  const analysis = analyze(entries);
  return { analysis, attribution: attributeUserMessages(analysis), live };
}

/** A check that looked and found these violations (possibly none). */
export function checked(findings: RawFinding[]): CheckOutcome {
  return { applicable: true, findings };
}

/** A check that had nothing to look at, and why. */
export function notApplicable(reason: string): CheckOutcome {
  return { applicable: false, reason };
}

/** A short JSON rendering of a value for evidence. */
export function show(value: unknown, limit = 120): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** "line N" for a message index, for sentences that point at another message. */
export function lineOf(context: CheckContext, index: number): string {
  return `line ${context.analysis.entries[index]?.line ?? index + 1}`;
}
