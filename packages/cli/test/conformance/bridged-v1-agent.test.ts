/**
 * The conformance kit against a v1 agent behind `acp-kit bridge --serve v2`: the bridge must make
 * a v1 agent (written with the official SDK's v1 API) keep every v2 lifecycle promise, whether
 * the v1 agent echoes the user message with its own IDs or not at all.
 */
import { fileURLToPath } from 'node:url';
import { runConformance } from '@acp-kit/conformance';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild } from '../harness.js';

const V1_AGENT = fileURLToPath(
  new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url),
);

beforeAll(requireBuild);

describe('conformance of a bridged v1 agent', () => {
  for (const [label, echo] of [
    ['that echoes user messages with its own IDs', 'ids'],
    ['that never echoes user messages', undefined],
  ] as const) {
    it(`passes every mandatory rule for a v1 agent ${label}`, { timeout: 120_000 }, async () => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      if (echo) env.V1_ECHO = echo;
      else delete env.V1_ECHO;
      const report = await runConformance({
        command: process.execPath,
        args: [BIN, 'bridge', '--serve', 'v2', '--', process.execPath, '--import', 'tsx', V1_AGENT],
        env,
        timeoutMs: 15_000,
        startupTimeoutMs: 30_000,
      });
      const failed = report.results.filter((result) => result.status === 'fail').map((result) => result.id);
      expect(failed).toEqual([]);
      expect(report.passed).toBe(true);
    });
  }
});
