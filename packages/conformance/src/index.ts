/**
 * @acp-kit/conformance — checks a live ACP v2 agent against the prompt-lifecycle rules
 * ({@link runConformance}) and lints recorded transcripts ({@link lintTranscript}). The linter
 * alone is also available, browser-safe, as `@acp-kit/conformance/lint`.
 */
export {
  type AbortNote,
  type CheckOutcome,
  combineOutcomes,
  entriesFromLines,
  evaluateTranscript,
  type ExitNote,
  type Finding,
  formatFinding,
  formatResultsTable,
  formatSummary,
  KIT_SOURCE,
  type LintResult,
  lintTranscript,
  type NoteLine,
  type ParsedTranscript,
  parseTranscript,
  type RecordingHeader,
  type RecordingNote,
  RULES,
  type RuleId,
  type RuleInfo,
  ruleInfo,
  type RuleResult,
  type RuleStatus,
  type RuleTier,
  type TranscriptEntry,
  type TranscriptLineProblem,
  type TranscriptOutcomes,
  type UnansweredNote,
} from './lint.js';
export {
  type ConformanceOptions,
  type ConformanceProgress,
  runConformance,
  SCENARIO_NAMES,
} from './live/run.js';
export type { ConformanceReport, ScenarioReport } from './live/report.js';
