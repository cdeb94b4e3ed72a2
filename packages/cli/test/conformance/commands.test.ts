import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runConformanceCommand, scenarioTranscriptPath } from '../../src/commands/conformance.js';
import { runLintCommand } from '../../src/commands/lint.js';
// The conformance kit's own test fixtures (a configurable agent, a transcript builder): cli depends
// on @acp-kit/conformance, so reading them from here keeps the test-time dependency one way.
import { fixtureArgs } from '../../../conformance/test/helpers/agents.js';
import { TranscriptBuilder } from '../../../conformance/test/helpers/transcript.js';

// The two CLI commands, called in-process with stdout and stderr captured.
let out = '';
let err = '';
beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'acp-conformance-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('acp-kit conformance', () => {
  it('exits 0 for a conforming agent, with a progress line per scenario and a PASS table', async () => {
    const code = await runConformanceCommand(['--timeout', '8', '--', process.execPath, ...fixtureArgs()]);
    expect(code).toBe(0);
    for (const scenario of ['lifecycle', 'rejection', 'cancel', 'resume']) {
      expect(err).toMatch(new RegExp(`\\] ${scenario}: `));
      expect(err).toMatch(new RegExp(`${scenario}: ok in \\d+ ms`));
    }
    expect(out).toMatch(/^PASS {2}MUST {4}prompt\.response\.message-id$/m);
    expect(out).toMatch(/^SKIP {2}SHOULD {2}client-message\.schema +\(lint only/m);
    expect(out).toMatch(/— CONFORMS/);
  });

  it('exits 1 on a mandatory failure, writing the report with failing transcripts and one recording per scenario', async () => {
    const json = join(dir, 'report.json');
    const record = join(dir, 'run.ndjson');
    const args = [
      '--json',
      json,
      '--record',
      record,
      '--',
      process.execPath,
      ...fixtureArgs('no-message-id'),
    ];
    expect(await runConformanceCommand(args)).toBe(1);
    expect(out).toMatch(/^FAIL {2}MUST {4}prompt\.response\.message-id$/m);
    const report = JSON.parse(await readFile(json, 'utf8'));
    expect(report.passed).toBe(false);
    const failing = report.scenarios.filter((scenario: { status: string }) => scenario.status !== 'ok');
    expect(failing.length).toBeGreaterThan(0);
    for (const scenario of failing) expect(scenario.transcript.length).toBeGreaterThan(0);
    const ok = report.scenarios.filter((scenario: { status: string }) => scenario.status === 'ok');
    for (const scenario of ok) expect(scenario.transcript).toBeUndefined();

    expect(await runLintCommand([join(dir, 'run.lifecycle.ndjson')])).toBe(1);
    expect(out).toMatch(/run\.lifecycle\.ndjson:\d+: MUST prompt\.response\.message-id: /);
  });

  it('writes the report and every recording readable by you only (0600), also over files that existed readable by others (#40 item 15)', async () => {
    const folder = await mkdtemp(join(dir, 'private-'));
    const json = join(folder, 'report.json');
    const record = join(folder, 'run.ndjson');
    for (const existing of [json, join(folder, 'run.lifecycle.ndjson')]) {
      await writeFile(existing, 'old\n');
      await chmod(existing, 0o644);
    }
    const args = [
      '--json',
      json,
      '--record',
      record,
      '--',
      process.execPath,
      ...fixtureArgs('no-message-id'),
    ];
    expect(await runConformanceCommand(args)).toBe(1);
    const files = (await readdir(folder)).sort();
    expect(files).toContain('run.lifecycle.ndjson');
    const modes = await Promise.all(
      files.map(async (file) => [file, ((await stat(join(folder, file))).mode & 0o777).toString(8)]),
    );
    expect(modes).toEqual(files.map((file) => [file, '600']));
  });

  it.each([
    [['--', '']],
    [[process.execPath]],
    [['--frobnicate', '--', process.execPath]],
    [['--timeout', 'soon', '--', process.execPath]],
  ])('exits 2 for the usage error %j', async (args) => {
    expect(await runConformanceCommand(args)).toBe(2);
    expect(err).toMatch(/^acp-kit conformance: /);
  });

  it('names one recording per scenario next to the given file', () => {
    expect(scenarioTranscriptPath('out/run.ndjson', 'cancel')).toBe('out/run.cancel.ndjson');
    expect(scenarioTranscriptPath('out/run', 'cancel')).toBe('out/run.cancel.ndjson');
  });
});

describe('acp-kit lint', () => {
  it('exits 0 when only advisory rules have findings, printing file:line', async () => {
    const t = new TranscriptBuilder().open();
    t.client({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId: 'sess_1', prompt: [] },
    });
    t.error(2, -32602);
    const file = join(dir, 'advisory.ndjson');
    await writeFile(file, t.text());
    expect(await runLintCommand([file])).toBe(0);
    expect(out).toContain(
      `${file}:5: SHOULD client-message.schema: session/prompt params is invalid at /params/prompt`,
    );
  });

  it.each([[[]], [['a.ndjson', 'b.ndjson']], [[join(tmpdir(), 'acp-kit-no-such-transcript.ndjson')]]])(
    'exits 2 for the usage error %j',
    async (args) => {
      expect(await runLintCommand(args)).toBe(2);
      expect(err).toMatch(/^acp-kit lint: /);
    },
  );
});
