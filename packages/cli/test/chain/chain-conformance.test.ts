/**
 * #29, proxy chains: a chain of two acp-kit proxies in front of the reference agent — `acp-kit
 * chain`, both `acp-kit proxy` processes and `acp-kit agent` are child processes over stdio — is
 * an agent like any other to the conformance kit: every core rule passes through it, and
 * `acp-kit conformance -- acp-kit chain …` reports it conforming.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintTranscript, runConformance } from '@acp-kit/conformance';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runConformanceCommand } from '../../src/commands/conformance.js';
import { requireBuild, tempDir } from '../harness.js';
import { chainArgs, noneLeft, proxyLine, REFERENCE_AGENT } from './chain-process.js';

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
];

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  requireBuild();
  ({ dir, cleanup } = tempDir());
});
afterAll(() => cleanup());

/** Two proxies (one adding context to prompts, one logging) in front of `acp-kit agent`. */
const chain = (name: string) =>
  chainArgs(
    [
      proxyLine(
        '--name',
        'context',
        '--context',
        'Project rules: tabs.',
        '--log',
        join(dir, `${name}-context.ndjson`),
      ),
      proxyLine('--name', 'tap', '--log', join(dir, `${name}-tap.ndjson`)),
    ],
    REFERENCE_AGENT,
  );

describe('the conformance kit against two acp-kit proxies in front of acp-kit agent', () => {
  it('passes every core rule, and its transcripts lint clean', async () => {
    const transcripts = new Map<string, string>();
    const report = await runConformance({
      command: process.execPath,
      args: chain('library'),
      timeoutMs: 20_000,
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
    for (const [scenario, text] of transcripts) expect(lintTranscript(text).failed, scenario).toBe(false);
    // It did go through both proxies: the second one saw the prompts, with the first one's context.
    const tapped = readFileSync(join(dir, 'library-tap.ndjson'), 'utf8');
    expect(tapped).toMatch(
      /"direction":"toAgent","kind":"request","method":"session\/prompt".*Project rules: tabs\./,
    );
    expect(tapped).toMatch(/"direction":"toClient","kind":"notification","method":"session\/update"/);
    await noneLeft(join(dir, 'library-'));
  });

  describe('acp-kit conformance -- acp-kit chain …', () => {
    let out = '';
    beforeEach(() => {
      out = '';
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        out += String(chunk);
        return true;
      });
      vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('exits 0 and reports the chain conforming', async () => {
      const code = await runConformanceCommand([
        '--timeout',
        '20',
        '--',
        process.execPath,
        ...chain('command'),
      ]);
      expect(out).toMatch(/— CONFORMS/);
      expect(code).toBe(0);
      await noneLeft(join(dir, 'command-'));
    });
  });
});
