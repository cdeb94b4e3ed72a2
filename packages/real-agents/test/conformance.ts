/**
 * `acp-kit conformance -- acp-kit bridge --serve v2 -- <agent>`: the conformance kit's live
 * scenarios over a bridged published agent, as a host would run them, with its JSON report.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { AgentSpec } from './agents.js';
import type { ModelServer } from './model-server.js';
import { BIN, killAll } from './peers.js';
import type { ResultLog } from './results.js';

/**
 * Time for one whole conformance run (a dozen live scenarios, three of them restarting the agent).
 * Alone on a quiet machine a Claude adapter takes about 35 s; inside `npm run check`, beside every
 * other package's tests on two cores, one took more than 170 s, so the budget is generous.
 */
const CONFORMANCE_BUDGET_MS = 480_000;

interface Report {
  passed: boolean;
  counts: { pass: number; fail: number; skip: number };
  results: { id: string; status: string; findings: { scenario?: string }[] }[];
}

/** A rule failure known and explained, which the test lets pass (and the results file names). */
export interface Tolerated {
  rule: string;
  /** The live scenario it fails in. */
  scenario: string;
  why: string;
}

/**
 * Registers the conformance test for one agent: every rule passes or is skipped, except failures
 * listed in `tolerated` (rule and scenario), which the row's detail names.
 */
export function itConforms(
  spec: AgentSpec,
  model: () => ModelServer,
  log: ResultLog,
  tolerated: readonly Tolerated[] = [],
): void {
  const check = tolerated.length === 0 ? 'conformance' : 'conformance.tolerating';
  const detail =
    tolerated.length === 0
      ? undefined
      : `tolerated: ${tolerated.map((t) => `${t.rule} in ${t.scenario} (${t.why})`).join('; ')}`;
  it(
    check,
    () =>
      log.record(
        { spec, path: 'conformance', transport: 'stdio', client: 'acp-kit conformance', check, detail },
        async () => {
          const setup = spec.setup(model().origin);
          const dir = mkdtempSync(join(tmpdir(), 'acp-kit-conformance-'));
          try {
            const reportFile = join(dir, 'report.json');
            const child = spawn(
              process.execPath,
              [
                BIN,
                'conformance',
                '--json',
                reportFile,
                // Longest wait for one answer (default 10 s): a Claude adapter on a loaded machine
                // has taken longer to end a cancelled turn.
                '--timeout',
                '60',
                '--',
                process.execPath,
                BIN,
                'bridge',
                '--serve',
                'v2',
                '--',
                ...setup.command,
              ],
              { env: setup.env, stdio: ['ignore', 'pipe', 'pipe'], cwd: dir },
            );
            let output = '';
            child.stdout!.setEncoding('utf8').on('data', (text: string) => {
              output += text;
            });
            child.stderr!.setEncoding('utf8').on('data', (text: string) => {
              output += text;
            });
            const timer = setTimeout(() => child.kill('SIGKILL'), CONFORMANCE_BUDGET_MS - 20_000);
            const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
              child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
            );
            clearTimeout(timer);
            if (!existsSync(reportFile))
              throw new Error(
                `acp-kit conformance wrote no report (exit code ${code}, signal ${signal}); its output:\n${output.slice(-4000)}`,
              );
            const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
            const failed = report.results
              .filter((r) => r.status === 'fail')
              .flatMap((r) => r.findings.map((f) => ({ rule: r.id, scenario: f.scenario ?? '' })))
              .filter((f) => !tolerated.some((t) => t.rule === f.rule && t.scenario === f.scenario));
            expect(failed, output).toEqual([]);
            if (tolerated.length === 0) {
              expect(code, output).toBe(0);
              expect(report.passed).toBe(true);
            }
            // The rules a real agent must exercise here were exercised, not skipped.
            const passed = new Set(report.results.filter((r) => r.status === 'pass').map((r) => r.id));
            const exercised = [
              'prompt.response.message-id',
              'state.work-ends',
              'resume.replay.no-duplicate',
              'cancel.ends-cancelled',
            ];
            for (const id of exercised.filter((rule) => !tolerated.some((t) => t.rule === rule)))
              expect(passed, `${id} passed`).toContain(id);
          } finally {
            killAll(setup);
            setup.cleanup();
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
    CONFORMANCE_BUDGET_MS,
  );
}
