/**
 * @acp-kit/conformance/lint — the browser-safe half of the kit: the rule catalog, the transcript
 * parser and the transcript linter. Nothing reachable from here imports Node APIs, so the docs
 * playground can bundle it.
 */
export { lintTranscript, type LintResult } from './lint-transcript.js';
export { formatFinding, formatResultsTable, formatSummary } from './report/format.js';
export { RULES, type RuleId, ruleInfo } from './rules/catalog.js';
export { combineOutcomes, evaluateTranscript, type TranscriptOutcomes } from './rules/evaluate.js';
export type { CheckOutcome, Finding, RuleInfo, RuleResult, RuleStatus, RuleTier } from './rules/types.js';
export {
  type AbortNote,
  type ExitNote,
  KIT_SOURCE,
  type RecordingHeader,
  type RecordingNote,
  type UnansweredNote,
} from './transcript/notes.js';
export {
  entriesFromLines,
  type NoteLine,
  type ParsedTranscript,
  parseTranscript,
  type TranscriptEntry,
  type TranscriptLineProblem,
} from './transcript/parse.js';
