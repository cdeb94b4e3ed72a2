import { writeFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import {
  type ConformanceProgress,
  type ConformanceReport,
  formatResultsTable,
  formatSummary,
  runConformance,
} from '@acp-kit/conformance';
import { onTerminationSignal, shutdownSpawned } from '@acp-kit/sdk';

const USAGE = `Usage: acp-kit conformance [--json <report.json>] [--timeout <s>] [--record <file.ndjson>]
                          [--background-prompt <text>] [--subagent-prompt <text>] -- <agent command…>

Launches the agent once per scenario (a fresh process each time, ACP v2 over stdio), drives it,
and checks every rule of the prompt-lifecycle catalog. Prints PASS / FAIL / SKIP per rule.

  --json <file>      write the full report, with the transcript of every failing scenario
  --timeout <s>      longest wait for any one answer (default 10)
  --background-prompt <text>
                     a prompt that makes the agent start background work (work listed in
                     state_update.background that outlives its turn), e.g. "/background 2"
                     for acp-kit agent; runs the background scenario, whose rules are
                     skipped without it
  --subagent-prompt <text>
                     a prompt that makes the agent start a subagent (upstream's unstable
                     surface), e.g. "/subagent count the files" for acp-kit agent --unstable;
                     runs the subagent scenario, whose rules are skipped without it
  --record <file>    write each scenario's transcript, as <file> with the scenario name before
                     the extension (run.ndjson → run.lifecycle.ndjson, …): every message both
                     ways, one {"dir","t","msg"} line each, then {"note":…} lines with what the
                     messages cannot show (the scenario, why it stopped, the agent's own exit
                     with the end of its stderr, requests it never answered), so that
                     \`acp-kit lint\` of a recording reports the same MUST failures as the run

An agent that answers initialize with protocolVersion 1 is reported as a v1 agent, with the
command that checks it through the v1 → v2 bridge (acp-kit bridge --serve v2 -- …).

Exit status: 0 when no mandatory rule fails, 1 otherwise, 2 for a usage error.
`;

class Usage extends Error {}

interface Invocation {
  command: string;
  args: string[];
  json?: string;
  record?: string;
  timeoutMs: number;
  backgroundPrompt?: string;
  subagentPrompt?: string;
}

function parse(argv: readonly string[]): Invocation {
  const split = argv.indexOf('--');
  if (split < 0) throw new Usage('the agent command goes after "--"');
  const [command, ...args] = argv.slice(split + 1);
  if (command === undefined || command === '') throw new Usage('no agent command after "--"');
  let values: {
    json?: string;
    record?: string;
    timeout?: string;
    'background-prompt'?: string;
    'subagent-prompt'?: string;
  };
  try {
    ({ values } = parseArgs({
      args: argv.slice(0, split),
      options: {
        json: { type: 'string' },
        record: { type: 'string' },
        timeout: { type: 'string' },
        'background-prompt': { type: 'string' },
        'subagent-prompt': { type: 'string' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    throw new Usage(error instanceof Error ? error.message : String(error));
  }
  const seconds = values.timeout === undefined ? 10 : Number(values.timeout);
  if (!(Number.isFinite(seconds) && seconds > 0)) {
    throw new Usage(`--timeout expects a positive number of seconds, got "${values.timeout}"`);
  }
  return {
    command,
    args,
    timeoutMs: Math.round(seconds * 1000),
    ...(values.json !== undefined ? { json: values.json } : {}),
    ...(values.record !== undefined ? { record: values.record } : {}),
    ...(values['background-prompt'] !== undefined ? { backgroundPrompt: values['background-prompt'] } : {}),
    ...(values['subagent-prompt'] !== undefined ? { subagentPrompt: values['subagent-prompt'] } : {}),
  };
}

/** `run.ndjson` + `lifecycle` → `run.lifecycle.ndjson`: one file per scenario, each lintable alone. */
export function scenarioTranscriptPath(base: string, scenario: string): string {
  return base.endsWith('.ndjson')
    ? `${base.slice(0, -'.ndjson'.length)}.${scenario}.ndjson`
    : `${base}.${scenario}.ndjson`;
}

function progress(event: ConformanceProgress): void {
  if (event.phase === 'start') {
    process.stderr.write(`[${event.index + 1}/${event.total}] ${event.scenario}: ${event.description}\n`);
    return;
  }
  const note = event.note ? ` — ${event.note}` : '';
  process.stderr.write(`      ${event.scenario}: ${event.status} in ${event.durationMs} ms${note}\n`);
}

function printReport(report: ConformanceReport): void {
  process.stdout.write(
    `\nacp-kit conformance: ${[report.agent.command, ...report.agent.args].join(' ')}\n\n`,
  );
  if (report.otherVersion) {
    const { protocolVersion, suggestion } = report.otherVersion;
    process.stdout.write(
      `This is an ACP v${protocolVersion} agent: it answered initialize with protocolVersion ${protocolVersion}. ` +
        'The kit checks ACP v2 agents, so no rule was judged.\n',
    );
    if (suggestion) process.stdout.write(`Check it through the v1 → v2 bridge instead:\n\n  ${suggestion}\n`);
    process.stdout.write('\nDOES NOT CONFORM (not an ACP v2 agent)\n');
    return;
  }
  process.stdout.write(formatResultsTable(report.results));
  process.stdout.write(
    `\n${formatSummary(report.results)} — ${report.passed ? 'CONFORMS' : 'DOES NOT CONFORM'}\n`,
  );
}

/** `acp-kit conformance`: runs the conformance kit against an agent command. */
export async function runConformanceCommand(argv: string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  let invocation: Invocation;
  try {
    invocation = parse(argv);
  } catch (error) {
    if (!(error instanceof Usage)) throw error;
    process.stderr.write(`acp-kit conformance: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  const written: string[] = [];
  // A signal stops the run: every agent it started is shut down (process group and all) before
  // the command exits with 128 + the signal's number; a second signal kills them at once.
  const watch = onTerminationSignal();
  void watch.signalled.then(async (signal) => {
    process.stderr.write(`acp-kit conformance: ${signal}: stopping the agents, then exiting\n`);
    await shutdownSpawned({ graceMs: 1000 });
    // The run would go on to its next scenario and start another agent: end here (the exit hook
    // kills any agent started meanwhile).
    process.exit(128 + constants.signals[signal]);
  });
  const report = await runConformance({
    command: invocation.command,
    args: invocation.args,
    timeoutMs: invocation.timeoutMs,
    onProgress: progress,
    ...(invocation.backgroundPrompt !== undefined ? { backgroundPrompt: invocation.backgroundPrompt } : {}),
    ...(invocation.subagentPrompt !== undefined ? { subagentPrompt: invocation.subagentPrompt } : {}),
    ...(invocation.record
      ? {
          record: async (scenario: string, transcript: string) => {
            const path = scenarioTranscriptPath(invocation.record!, scenario);
            await writeFile(path, transcript);
            written.push(path);
          },
        }
      : {}),
  });
  printReport(report);
  if (invocation.json) {
    await writeFile(invocation.json, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`report written to ${invocation.json}\n`);
  }
  if (written.length > 0) process.stderr.write(`transcripts written to ${written.join(', ')}\n`);
  watch.dispose();
  return report.passed ? 0 : 1;
}
