import { describe, expect, it } from 'vitest';
import { RULES, runConformance } from '../src/index.js';
import { OFFICIAL_SDK_AGENT } from './helpers/agents.js';

describe('the kit against an agent built with @agentclientprotocol/sdk/experimental/v2', () => {
  it('completes and reports a verdict for every rule', async () => {
    const report = await runConformance({
      command: process.execPath,
      args: ['--import', 'tsx', OFFICIAL_SDK_AGENT],
      timeoutMs: 15_000,
    });
    expect(report.results.map((result) => result.id)).toEqual(RULES.map((rule) => rule.id));
    expect(report.scenarios.map((scenario) => scenario.name)).toEqual([
      'lifecycle',
      'rejection',
      'cancel',
      'teardown',
      'resume',
      'fork',
      'nes',
    ]);
    // The verdict itself is informational: this pins only that the kit drives a foreign agent to the end.
    const failed = report.results.filter((result) => result.status === 'fail').map((result) => result.id);
    console.info(
      `official-SDK agent: ${report.passed ? 'passed' : 'failed'}; failing rules: ${failed.join(', ') || 'none'}`,
    );
  });
});
