/**
 * The conformance kit against a v1 agent behind `acp-kit bridge --serve v2`: the bridge must make
 * a v1 agent (written with the official SDK's v1 API) keep every v2 lifecycle promise, whether
 * the v1 agent echoes the user message with its own IDs or not at all.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runConformance } from '@acp-kit/conformance';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild } from '../harness.js';

const V1_AGENT = fileURLToPath(
  new URL('../../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url),
);

beforeAll(requireBuild);

/** Runs the built `acp-kit` with `args`; resolves with its stdout and exit code. */
function runCli(args: string[]): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (error, stdout) => {
      resolve({ stdout, code: error ? (typeof error.code === 'number' ? error.code : 1) : 0 });
    });
  });
}

describe('conformance of a v1 agent run without the bridge', () => {
  it('says it is a v1 agent and suggests the bridge, instead of failing v2 rules', {
    timeout: 60_000,
  }, async () => {
    const args = ['--import', 'tsx', V1_AGENT];
    const report = await runConformance({
      command: process.execPath,
      args,
      timeoutMs: 15_000,
      startupTimeoutMs: 30_000,
    });
    expect(report.passed).toBe(false);
    expect(report.otherVersion).toEqual({
      protocolVersion: 1,
      suggestion: `acp-kit conformance -- acp-kit bridge --serve v2 -- ${process.execPath} ${args.join(' ')}`,
    });
    expect(report.results.filter((result) => result.status !== 'skip')).toEqual([]);
    // One scenario was enough to tell; the others were not started.
    expect(report.scenarios).toHaveLength(1);
  });

  it('prints the bridge command from acp-kit conformance and exits 1', async () => {
    const { stdout, code } = await runCli([
      'conformance',
      '--',
      process.execPath,
      '--import',
      'tsx',
      V1_AGENT,
    ]);
    expect(code).toBe(1);
    expect(stdout).toContain('This is an ACP v1 agent: it answered initialize with protocolVersion 1.');
    expect(stdout).toContain('acp-kit conformance -- acp-kit bridge --serve v2 -- ');
    expect(stdout).not.toContain('baseline.initialize.info');
  });
});

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

describe('conformance of a bridged v1 agent whose replay differs from its live stream', () => {
  for (const [label, diverge] of [
    ["that streams a warning live and does not replay it (codex-acp's unknown model)", 'live-notice'],
    ["that replays user entries never sent live (claude-agent-acp's /model)", 'replay-extra'],
  ] as const) {
    it(`keeps every live message under its ID and content through a replay, for a v1 agent ${label}`, {
      timeout: 120_000,
    }, async () => {
      const report = await runConformance({
        command: process.execPath,
        args: [BIN, 'bridge', '--serve', 'v2', '--', process.execPath, '--import', 'tsx', V1_AGENT],
        env: { ...process.env, V1_DIVERGE: diverge },
        timeoutMs: 15_000,
        startupTimeoutMs: 30_000,
      });
      const status = (id: string) => report.results.find((result) => result.id === id)?.status;
      expect(status('resume.replay.no-duplicate')).toBe('pass');
      const failed = report.results.filter((result) => result.status === 'fail').map((result) => result.id);
      expect(failed).toEqual([]);
      // User entries replayed that the session never had live are new messages, with fresh IDs:
      // the message-id rule passes (every live message kept its ID) and notes exactly those.
      const messageIds = report.results.find((result) => result.id === 'resume.replay.message-id');
      expect(messageIds?.status).toBe('pass');
      if (diverge === 'replay-extra') expect(messageIds?.notes?.length).toBeGreaterThan(0);
      else expect(messageIds?.notes).toBeUndefined();
    });
  }
});
