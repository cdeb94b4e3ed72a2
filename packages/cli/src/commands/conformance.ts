import { constants } from 'node:os';
import {
  type ConformanceProgress,
  type ConformanceReport,
  formatResultsTable,
  formatSummary,
  runConformance,
} from '@acp-kit/conformance';
import { parseOptions, reportUsageError } from '../command-line.js';
import { writeConversationFile } from '../conversation-file.js';
import { UsageError } from '../usage-error.js';
import { onTerminationSignal, shutdownSpawned } from '@acp-kit/sdk';

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
  if (split < 0) throw new UsageError('the agent command goes after "--"');
  const [command, ...args] = argv.slice(split + 1);
  if (command === undefined || command === '') throw new UsageError('no agent command after "--"');
  const { values } = parseOptions({
    args: argv.slice(0, split),
    options: {
      json: { type: 'string' },
      record: { type: 'string' },
      timeout: { type: 'string' },
      'background-prompt': { type: 'string' },
      'subagent-prompt': { type: 'string' },
    },
    allowPositionals: false,
  });
  const seconds = values.timeout === undefined ? 10 : Number(values.timeout);
  if (!(Number.isFinite(seconds) && seconds > 0)) {
    throw new UsageError(`--timeout expects a positive number of seconds, got "${values.timeout}"`);
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
  let invocation: Invocation;
  try {
    invocation = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsageError('conformance', error.message);
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
            writeConversationFile(path, transcript);
            written.push(path);
          },
        }
      : {}),
  });
  printReport(report);
  if (invocation.json) {
    writeConversationFile(invocation.json, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`report written to ${invocation.json}\n`);
  }
  if (written.length > 0) process.stderr.write(`transcripts written to ${written.join(', ')}\n`);
  watch.dispose();
  return report.passed ? 0 : 1;
}
