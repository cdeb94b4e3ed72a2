import { parseArgs } from 'node:util';
import { diffSchemas } from './diff-schemas.js';
import { formatJson, formatMarkdown, formatText } from './format-report.js';
import { checkRelease, describeReleaseCheck, writeReleaseNotes } from './release-check.js';
import { SCHEMA_PACKAGES, packageVersion, readSchemaSource, repoRoot } from './schema-source.js';

/** `acp-kit-codegen diff [<old> <new>] [--format text|json|markdown] [--editorial] [--fail-on-breaking]`. */
export function runDiff(args: string[], usage: string): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'text' },
      editorial: { type: 'boolean', default: false },
      'fail-on-breaking': { type: 'boolean', default: false },
    },
  });
  const format = values.format;
  if (positionals.length === 1 || positionals.length > 2 || !['text', 'json', 'markdown'].includes(format)) {
    console.error(usage);
    return 2;
  }
  let oldSpec = positionals[0];
  let newSpec = positionals[1];
  if (oldSpec === undefined || newSpec === undefined) {
    // No arguments: the v2 schema against the one its package was last released with.
    const root = repoRoot(process.cwd());
    const pkg = SCHEMA_PACKAGES[0]!;
    oldSpec = `${pkg.name}@${packageVersion(root, pkg)}`;
    newSpec = `${root}/${pkg.schema}`;
  }
  const oldSource = readSchemaSource(oldSpec);
  const newSource = readSchemaSource(newSpec);
  const report = diffSchemas(oldSource, newSource);
  const text =
    format === 'json'
      ? formatJson(report)
      : format === 'markdown'
        ? formatMarkdown(report, { editorial: values.editorial })
        : formatText(report, { editorial: values.editorial });
  process.stdout.write(text);
  return values['fail-on-breaking'] && report.summary.breaking > 0 ? 1 : 0;
}

/** `acp-kit-codegen release-check [--root <dir>]`: fails when pending changesets bump less than the schema report requires. */
export function runReleaseCheck(args: string[]): number {
  const { values } = parseArgs({ args, options: { root: { type: 'string' } } });
  const check = checkRelease(values.root ?? repoRoot(process.cwd()));
  for (const line of describeReleaseCheck(check)) (check.ok ? console.log : console.error)(line);
  if (!check.ok) {
    console.error(
      'pending changesets bump less than the schema changes require (see `npm run schema:diff`).',
    );
    return 1;
  }
  return 0;
}

/** `acp-kit-codegen release-notes [--root <dir>]`: after `changeset version`, the schema report into each schema package's changelog. */
export function runReleaseNotes(args: string[]): number {
  const { values } = parseArgs({ args, options: { root: { type: 'string' } } });
  const written = writeReleaseNotes(values.root ?? repoRoot(process.cwd()));
  for (const path of written) console.log(`schema changes added to ${path}`);
  if (written.length === 0) console.log('no schema package changed version: no release notes written');
  return 0;
}
