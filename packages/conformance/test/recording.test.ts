import { describe, expect, it } from 'vitest';
import { lintTranscript, runConformance } from '../src/index.js';
import { fixtureArgs } from './helpers/agents.js';

/** Runs the kit against the fixture agent with `breaks`, keeping every scenario's recording. */
async function recordedRun(...breaks: string[]) {
  const recordings = new Map<string, string>();
  const report = await runConformance({
    command: process.execPath,
    args: fixtureArgs(...breaks),
    timeoutMs: breaks.includes('never-idle') ? 1500 : 8000,
    record: (scenario, transcript) => {
      recordings.set(scenario, transcript);
    },
  });
  return { report, recordings };
}

/** The mandatory rules a report or lint failed, sorted. */
const mustFailures = (results: readonly { id: string; tier: string; status: string }[]): string[] =>
  results
    .filter((result) => result.tier === 'mandatory' && result.status === 'fail')
    .map((result) => result.id)
    .sort();

describe('a recorded conformance run, linted', () => {
  it('fails agent.responds for a crashed agent, as the live run did, and names its exit and stderr', async () => {
    const { report, recordings } = await recordedRun('exit-on-new-session');
    const live = mustFailures(report.results);
    expect(live).toEqual(['agent.responds']);
    const linted = new Set<string>();
    for (const recording of recordings.values())
      for (const id of mustFailures(lintTranscript(recording).results)) linted.add(id);
    expect([...linted].sort()).toEqual(live);

    const lifecycle = lintTranscript(recordings.get('lifecycle') ?? '');
    expect(lifecycle.recording?.scenario).toBe('lifecycle');
    expect(lifecycle.recording?.exit).toMatchObject({ code: expect.any(Number) });
    expect(lifecycle.recording?.exit?.code).not.toBe(0);
    const responds = lifecycle.findings.find((finding) => finding.ruleId === 'agent.responds');
    expect(responds?.message).toMatch(/exited|closed/);
    // The request the agent died on is listed as never answered.
    expect(lifecycle.recording?.unanswered.map((request) => request.method)).toContain('session/new');
  });

  it('fails the same mandatory rules as the live run for an agent that breaks a lifecycle rule', async () => {
    const { report, recordings } = await recordedRun('hold-response');
    const linted = new Set<string>();
    for (const recording of recordings.values())
      for (const id of mustFailures(lintTranscript(recording).results)) linted.add(id);
    expect([...linted].sort()).toEqual(mustFailures(report.results));
    expect(mustFailures(report.results)).toContain('prompt.response.before-idle');
  });

  it('keeps every message on the line the live report gives it (notes come after the messages)', async () => {
    const { report, recordings } = await recordedRun('hold-response');
    const finding = report.results
      .flatMap((result) => result.findings)
      .find((f) => f.ruleId === 'prompt.response.before-idle');
    expect(finding?.scenario).toBeDefined();
    const linted = lintTranscript(recordings.get(finding?.scenario ?? '') ?? '');
    const again = linted.findings.find((f) => f.ruleId === 'prompt.response.before-idle');
    expect(again?.line).toBe(finding?.line);
  });

  it('passes a well-behaved agent’s recordings clean, without judging the kit’s own invalid prompts', async () => {
    const { report, recordings } = await recordedRun();
    expect(report.passed).toBe(true);
    for (const [scenario, recording] of recordings) {
      const result = lintTranscript(recording);
      expect({ scenario, failed: mustFailures(result.results) }).toEqual({ scenario, failed: [] });
      expect(result.results.find((r) => r.id === 'client-message.schema')?.status).toBe('skip');
      expect(result.recording?.exit).toBeUndefined();
    }
  });
});

describe('recording notes in a transcript', () => {
  const message =
    '{"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2}}}';

  it('are not messages, and a note of a kind this version does not know is no format problem', () => {
    const result = lintTranscript(`${message}\n{"note":"from-a-later-kit","x":1}\n`);
    expect(result.messages).toBe(1);
    expect(result.results.find((r) => r.id === 'transcript.format')?.findings).toEqual([]);
    expect(result.recording).toBeUndefined();
  });

  it('leave a transcript without them judged as before: agent.responds is for live runs', () => {
    const result = lintTranscript(`${message}\n`);
    expect(result.results.find((r) => r.id === 'agent.responds')?.status).toBe('skip');
  });
});
