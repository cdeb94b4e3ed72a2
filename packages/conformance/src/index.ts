/**
 * @acp-kit/conformance — checks a live ACP v2 agent against the prompt-lifecycle rules
 * ({@link runConformance}) and lints recorded transcripts ({@link lintTranscript}). The linter
 * alone is also available, browser-safe, as `@acp-kit/conformance/lint`.
 */
export * from './lint.js';
export {
  type ConformanceOptions,
  type ConformanceProgress,
  runConformance,
  SCENARIO_NAMES,
} from './live/run.js';
export type { ConformanceReport, ScenarioReport } from './live/report.js';
