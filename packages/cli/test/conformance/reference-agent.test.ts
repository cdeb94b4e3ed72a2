import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintTranscript, runConformance } from '@acp-kit/conformance';
import { BIN, requireBuild } from '../harness.js';

let dir: string;
beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'acp-conformance-ref-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CORE_RULES = [
  'prompt.response.message-id',
  'prompt.user-message.reported',
  'prompt.user-message.same-id',
  'prompt.message-id.distinct',
  'prompt.response.before-idle',
  'prompt.rejected.error',
  'prompt.rejected.no-user-message',
  'state.running-before-idle',
  'state.work-ends',
  'resume.replay.message-id',
  'resume.replay.reset-before-chunks',
  'resume.replay.no-duplicate',
  'resume.no-replay-without-replay-from',
  'update.schema',
  'update.session-id',
  'agent-message.schema',
  'baseline.unknown-values',
  'jsonrpc.params.omitted',
  'session.close.cancels-turn',
  'session.delete.unknown-succeeds',
];

const UNSTABLE_RULES = [
  'fork.replay.retained',
  'fork.replay.no-duplicate',
  'session-message.replay',
  'nes.suggestion.kind-advertised',
  'nes.suggestion.position-inside',
  'nes.suggest.answered',
];

const BACKGROUND_RULES = [
  'background.announced-first',
  'background.final-before-removal',
  'background.listed-once',
  'background.every-state-update',
  'background.cancel-leaves-running',
  'background.repeat-not-completion',
];

describe.concurrent('the kit against the reference agent (acp-kit agent)', () => {
  it('passes with in-memory history, checking every core rule, and its transcripts lint clean', async () => {
    const transcripts = new Map<string, string>();
    const report = await runConformance({
      command: process.execPath,
      args: [BIN, 'agent', '--chunk-delay', '1'],
      timeoutMs: 15_000,
      cwd: dir,
      record: (scenario, text) => {
        transcripts.set(scenario, text);
      },
    });
    expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
    expect(report.passed).toBe(true);
    const status = Object.fromEntries(report.results.map((result) => [result.id, result.status]));
    for (const id of CORE_RULES) expect(status[id], id).toBe('pass');
    expect([...transcripts.keys()]).toEqual([
      'lifecycle',
      'rejection',
      'cancel',
      'teardown',
      'resume',
      'fork',
      'nes',
    ]);
    for (const [scenario, text] of transcripts) {
      const lint = lintTranscript(text);
      expect(lint.failed, scenario).toBe(false);
    }
    // Stable-only without --unstable: the unstable surface's rules are skipped, never failed.
    for (const id of UNSTABLE_RULES) expect(status[id], id).toBe('skip');
    expect(report.results.find((result) => result.id === 'fork.replay.retained')?.reason).toMatch(
      /does not advertise capabilities\.session\.fork/,
    );
  });

  it('passes the subagent and session-message rules with --unstable --subagent-prompt, and the transcript lints clean', async () => {
    const transcripts = new Map<string, string>();
    const report = await runConformance({
      command: process.execPath,
      args: [BIN, 'agent', '--unstable', '--chunk-delay', '1'],
      timeoutMs: 15_000,
      cwd: dir,
      scenarios: ['subagent'],
      subagentPrompt: '/subagent count the files',
      record: (scenario, text) => {
        transcripts.set(scenario, text);
      },
    });
    expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
    const status = Object.fromEntries(report.results.map((result) => [result.id, result.status]));
    expect([status['subagent.announced-first'], status['session-message.replay']]).toEqual(['pass', 'pass']);
    const lint = lintTranscript(transcripts.get('subagent')!);
    expect(lint.failed).toBe(false);
    expect(lint.results.find((result) => result.id === 'session-message.replay')?.status).toBe('pass');
  });

  it('passes the next edit suggestion rules with --unstable (rename and edit suggestions, no searchAndReplace the kit did not advertise), and the nes transcript lints clean', async () => {
    const transcripts = new Map<string, string>();
    const report = await runConformance({
      command: process.execPath,
      args: [BIN, 'agent', '--unstable', '--chunk-delay', '1'],
      timeoutMs: 15_000,
      cwd: dir,
      scenarios: ['nes'],
      record: (scenario, text) => {
        transcripts.set(scenario, text);
      },
    });
    expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
    const status = Object.fromEntries(report.results.map((result) => [result.id, result.status]));
    expect(
      ['nes.suggestion.kind-advertised', 'nes.suggestion.position-inside', 'nes.suggest.answered'].map(
        (id) => status[id],
      ),
    ).toEqual(['pass', 'pass', 'pass']);
    const transcript = transcripts.get('nes')!;
    const kinds = transcript.match(/"kind":"\w+"/g) ?? [];
    expect(new Set(kinds)).toEqual(new Set(['"kind":"edit"', '"kind":"rename"']));
    const lint = lintTranscript(transcript);
    expect(lint.failed).toBe(false);
    expect(lint.results.find((result) => result.id === 'nes.suggestion.position-inside')?.status).toBe(
      'pass',
    );
  });

  it('passes the fork rules with --unstable, and the fork transcript lints clean', async () => {
    const transcripts = new Map<string, string>();
    const report = await runConformance({
      command: process.execPath,
      args: [BIN, 'agent', '--unstable', '--chunk-delay', '1'],
      timeoutMs: 15_000,
      cwd: dir,
      scenarios: ['fork'],
      record: (scenario, text) => {
        transcripts.set(scenario, text);
      },
    });
    expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
    const status = Object.fromEntries(report.results.map((result) => [result.id, result.status]));
    expect([status['fork.replay.retained'], status['fork.replay.no-duplicate']]).toEqual(['pass', 'pass']);
    const lint = lintTranscript(transcripts.get('fork')!);
    expect(lint.failed).toBe(false);
    expect(lint.results.find((result) => result.id === 'fork.replay.retained')?.status).toBe('pass');
  });

  it('passes all six background rules with --background-prompt "/background 1", and the background transcript lints clean', async () => {
    const transcripts = new Map<string, string>();
    const report = await runConformance({
      command: process.execPath,
      args: [BIN, 'agent', '--chunk-delay', '1'],
      timeoutMs: 15_000,
      cwd: dir,
      backgroundPrompt: '/background 1',
      record: (scenario, text) => {
        transcripts.set(scenario, text);
      },
    });
    expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
    const status = Object.fromEntries(report.results.map((result) => [result.id, result.status]));
    for (const id of BACKGROUND_RULES) expect(status[id], id).toBe('pass');
    for (const [scenario, text] of transcripts) {
      const lint = lintTranscript(text);
      const background = lint.findings.filter((finding) => finding.ruleId.startsWith('background.'));
      expect(background, scenario).toEqual([]);
      expect(lint.failed, scenario).toBe(false);
    }
  });

  it('passes with SQLite history (--history)', async () => {
    const report = await runConformance({
      command: process.execPath,
      args: [BIN, 'agent', '--chunk-delay', '1', '--history', join(dir, 'history.db')],
      timeoutMs: 15_000,
      cwd: dir,
    });
    expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
  });
});
