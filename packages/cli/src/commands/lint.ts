import { readFile } from 'node:fs/promises';
import { parseOptions, reportUsageError } from '../command-line.js';
import { UsageError } from '../usage-error.js';
import { type Finding, formatSummary, lintTranscript, ruleInfo, type RuleId } from '@acp-kit/conformance';

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
  let file: string;
  try {
    const { positionals } = parseOptions({ args: argv, options: {}, allowPositionals: true });
    const [first, extra] = positionals;
    if (first === undefined) throw new UsageError('no transcript file given');
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    file = first;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsageError('lint', error.message);
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
