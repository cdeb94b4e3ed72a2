import type { TranscriptLine } from '@acp-kit/sdk';
import type { RuleResult } from '../rules/types.js';

/** How one scenario went. */
export interface ScenarioReport {
  name: string;
  description: string;
  /** ok: ran to the end with no finding; failed: some rule failed in it; aborted: it could not finish. */
  status: 'ok' | 'failed' | 'aborted';
  /** Why it stopped early, when it did. */
  note?: string;
  durationMs: number;
  /** The end of the agent's stderr, for failing or aborted scenarios. */
  stderr?: string;
  /** The full transcript, for failing or aborted scenarios. */
  transcript?: TranscriptLine[];
}

/** The result of a conformance run. */
export interface ConformanceReport {
  /** The agent that was checked. */
  agent: { command: string; args: string[] };
  /** ISO timestamp of the start. */
  startedAt: string;
  durationMs: number;
  /** True when no mandatory rule failed. */
  passed: boolean;
  /** Rules by verdict. */
  counts: { pass: number; fail: number; skip: number };
  /** Every rule of the catalog, in order, with its verdict. */
  results: RuleResult[];
  scenarios: ScenarioReport[];
  /**
   * Set when the agent answered `initialize` with another protocol version (a v1 agent): no rule
   * was judged and `passed` is false. For a v1 agent, `suggestion` is the command that checks it
   * through the v1 → v2 bridge.
   */
  otherVersion?: { protocolVersion: number; suggestion?: string };
}
