import type { Finding, RuleResult } from '../rules/types.js';

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

/** One finding as a line of text: where, which rule, what, expected vs actual. */
export function formatFinding(finding: Finding): string {
  const where = [
    finding.scenario ? `[${finding.scenario}]` : '',
    finding.line !== undefined ? `line ${finding.line}` : '',
    finding.pointer !== undefined ? `at ${finding.pointer}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const detail = [
    finding.expected !== undefined ? `expected ${finding.expected}` : '',
    finding.actual !== undefined ? `got ${finding.actual}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return `${where ? `${where}: ` : ''}${finding.ruleId}: ${finding.message}${detail ? ` (${detail})` : ''}`;
}

/**
 * The verdicts as a plain-text table — status, tier, rule, and the reason for a SKIP — followed by
 * the findings of every failed rule, indented under it, and any rule's notes (observations the rule
 * allows), marked `note:`.
 */
export function formatResultsTable(
  results: readonly RuleResult[],
  options: { maxFindings?: number } = {},
): string {
  const maxFindings = options.maxFindings ?? 5;
  const idWidth = Math.max(...results.map((result) => result.id.length));
  const lines: string[] = [];
  for (const result of results) {
    const tier = result.tier === 'mandatory' ? 'MUST' : 'SHOULD';
    const head = `${LABEL[result.status]}  ${tier.padEnd(6)}  ${result.id.padEnd(idWidth)}`;
    lines.push(result.status === 'skip' ? `${head}  (${result.reason})` : head.trimEnd());
    for (const finding of result.findings.slice(0, maxFindings))
      lines.push(`        ${formatFinding(finding)}`);
    if (result.findings.length > maxFindings) {
      lines.push(`        … and ${result.findings.length - maxFindings} more`);
    }
    const notes = result.notes ?? [];
    for (const note of notes.slice(0, maxFindings)) lines.push(`        note: ${formatFinding(note)}`);
    if (notes.length > maxFindings) lines.push(`        … and ${notes.length - maxFindings} more notes`);
  }
  return `${lines.join('\n')}\n`;
}

/** A one-line tally, e.g. "14 passed, 1 failed (1 mandatory), 3 skipped". */
export function formatSummary(results: readonly RuleResult[]): string {
  const count = (status: RuleResult['status']): number =>
    results.filter((result) => result.status === status).length;
  const mandatory = results.filter(
    (result) => result.status === 'fail' && result.tier === 'mandatory',
  ).length;
  return `${count('pass')} passed, ${count('fail')} failed (${mandatory} mandatory), ${count('skip')} skipped`;
}
