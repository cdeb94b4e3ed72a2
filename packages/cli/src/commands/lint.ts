import { readFile } from 'node:fs/promises';
import { type Finding, formatSummary, lintTranscript, ruleInfo, type RuleId } from '@acp-kit/conformance';

const USAGE = `Usage: acp-kit lint <transcript.ndjson>

Checks a recorded transcript (one {"dir","t"?,"msg"} line per JSON-RPC message) against the
prompt-lifecycle rules and the v2 schema, printing each finding with its line number.

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
  process.stdout.write(`${file}: ${result.messages} message(s); ${formatSummary(result.results)}\n`);
  return result.failed ? 1 : 0;
}
