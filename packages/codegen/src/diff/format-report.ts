import type { Change, DiffReport, Party, SchemaConventions, Verdict } from './change.js';

const HEADINGS: Record<Verdict, string> = {
  breaking: 'Breaking',
  additive: 'Additive (old and new interoperate)',
  editorial: 'Editorial (descriptions, titles, examples)',
};

/** Who an old implementation of which party breaks for, e.g. `receivers: client; senders: agent`. */
export function whoBreaks(change: Change): string {
  const parts: string[] = [];
  const list = (parties: readonly Party[]): string => parties.join(' and ');
  if (change.breaksReceivers.length > 0) parts.push(`old receivers (${list(change.breaksReceivers)})`);
  if (change.breaksSenders.length > 0) parts.push(`old senders (${list(change.breaksSenders)})`);
  if (change.breaksCode) parts.push('code using the generated types');
  return parts.length === 0 ? '' : `breaks ${parts.join(', ')}`;
}

function conventionNote(label: string, c: SchemaConventions): string | undefined {
  const missing: string[] = [];
  if (c.methods === 'none') missing.push('no methods (every definition is assumed to flow both ways)');
  if (c.methods === 'x-method') missing.push('methods from x-method/x-side annotations (no x-methods)');
  if (!c.discriminators) missing.push('no x-discriminator (unions matched by their const tags)');
  if (!c.openEnums) missing.push('no x-open-enum (an enum is open only if it has a catch-all branch)');
  if (!c.capabilities) missing.push('no capability gates');
  return missing.length === 0 ? undefined : `${label}: ${missing.join('; ')}`;
}

function conventionNotes(report: DiffReport): string[] {
  return [
    conventionNote(report.old, report.conventions.old),
    conventionNote(report.new, report.conventions.new),
  ].filter((n): n is string => n !== undefined);
}

function summaryLine(report: DiffReport): string {
  const { breaking, additive, editorial } = report.summary;
  return `${breaking} breaking, ${additive} additive, ${editorial} editorial`;
}

function byVerdict(report: DiffReport, verdict: Verdict): Change[] {
  return report.changes.filter((c) => c.verdict === verdict);
}

/** The report as plain text, one change per line: verdict group, subject, pointer, flow, who it breaks, reason. */
export function formatText(report: DiffReport, options: { editorial?: boolean } = {}): string {
  const lines = [`schema diff ${report.old} → ${report.new}: ${summaryLine(report)}`];
  for (const note of conventionNotes(report)) lines.push(`  note: ${note}`);
  for (const verdict of ['breaking', 'additive', 'editorial'] as const) {
    const changes = byVerdict(report, verdict);
    if (changes.length === 0) continue;
    lines.push('', `${HEADINGS[verdict]}:`);
    if (verdict === 'editorial' && options.editorial === false) {
      lines.push(`  ${changes.length} change(s) (shown with --editorial)`);
      continue;
    }
    for (const c of changes) {
      const who = whoBreaks(c);
      lines.push(
        `  ${c.subject}  #${c.pointer}  [${c.flow}] ${c.rule}: ${c.reason}${who === '' ? '' : ` — ${who}`}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function mdEscape(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The report as Markdown for release notes: a section per verdict, a table of breaking changes. */
export function formatMarkdown(
  report: DiffReport,
  options: { heading?: string; editorial?: boolean } = {},
): string {
  const lines = [
    `### ${options.heading ?? 'Schema changes'}`,
    '',
    `\`${report.old}\` → \`${report.new}\`: ${summaryLine(report)}.`,
  ];
  const notes = conventionNotes(report);
  if (notes.length > 0) lines.push('', ...notes.map((n) => `> ${n}`));
  const breaking = byVerdict(report, 'breaking');
  if (breaking.length > 0) {
    lines.push(
      '',
      '#### Breaking',
      '',
      '| Definition | Pointer | Flow | Breaks | Why |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const c of breaking)
      lines.push(
        `| ${c.subject} | \`${c.pointer}\` | ${c.flow} | ${mdEscape(whoBreaks(c).replace(/^breaks /, ''))} | ${mdEscape(c.reason)} |`,
      );
  }
  for (const verdict of ['additive', 'editorial'] as const) {
    const changes = byVerdict(report, verdict);
    if (changes.length === 0) continue;
    lines.push('', `#### ${HEADINGS[verdict]}`, '');
    if (verdict === 'editorial' && options.editorial === false) {
      lines.push(`${changes.length} editorial change(s).`);
      continue;
    }
    for (const c of changes) lines.push(`- **${c.subject}** \`${c.pointer}\`: ${c.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The report as JSON (the `DiffReport` object, stable key order). */
export function formatJson(report: DiffReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
