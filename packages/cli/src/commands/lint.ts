import { readFile } from 'node:fs/promises';
import { type Finding, formatSummary, lintTranscript, ruleInfo, type RuleId } from '@acp-kit/conformance';

const USAGE = `Usage: acp-kit lint <transcript.ndjson>

Checks a recorded transcript (one {"dir","t"?,"msg"} line per JSON-RPC message) against the
prompt-lifecycle rules and the v2 schema, printing each finding with its line number.

Transcripts come from the SDK's recorder (recordTranscript on a Connection), from
\`acp-kit conformance --record <file>\` (one file per scenario; their {"note":…} lines say how
the scenario ended, so the lint reaches the live run's verdicts), or from any tool that writes
the format.

Exit status: 1 when a mandatory rule fails, 0 otherwise, 2 for a usage error or unreadable file.
`;

function describe(file: string, finding: Finding): string {
  const tier = ruleInfo(finding.ruleId as RuleId).tier === 'mandatory' ? 'MUST' : 'SHOULD';
  const detail = [
    finding.expected !== undefined ? `expected ${finding.expected}` : '',
    finding.actual !== undefined ? `got ${finding.actual}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const where = finding.line !== undefined ? `${file}:${finding.line}` : file;
  return `${where}: ${tier} ${finding.ruleId}: ${finding.message}${detail ? ` (${detail})` : ''}`;
}

/** `acp-kit lint`: lints one transcript file. */
export async function runLintCommand(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [file, ...extra] = argv;
  if (file === undefined || extra.length > 0 || file.startsWith('-')) {
    const problem =
      file === undefined ? 'no transcript file given' : `unexpected argument "${extra[0] ?? file}"`;
    process.stderr.write(`acp-kit lint: ${problem}\n\n${USAGE}`);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    process.stderr.write(
      `acp-kit lint: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 2;
  }
  const result = lintTranscript(text);
  for (const finding of result.findings) process.stdout.write(`${describe(file, finding)}\n`);
  if (result.recording) {
    const { scenario, exit, unanswered } = result.recording;
    process.stdout.write(`${file}: recorded by acp-kit conformance, scenario ${scenario}\n`);
    if (exit) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      process.stdout.write(`${file}: the agent ${how} before the kit closed it\n`);
      if (exit.stderr) process.stdout.write(`${exit.stderr.replace(/^/gm, '  stderr| ')}\n`);
    }
    for (const request of unanswered) {
      process.stdout.write(
        `${file}:${request.requestLine}: ${request.method} (id ${JSON.stringify(request.id)}) was never answered\n`,
      );
    }
  }
  process.stdout.write(`${file}: ${result.messages} message(s); ${formatSummary(result.results)}\n`);
  return result.failed ? 1 : 0;
}
