import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Bump, bumpCovers, requiredBump } from './bump.js';
import type { DiffReport } from './change.js';
import { pendingBumps } from './changesets.js';
import { formatMarkdown } from './format-report.js';
import { diffSchemas } from './diff-schemas.js';
import {
  SCHEMA_PACKAGES,
  type SchemaPackage,
  committedVersion,
  packageVersion,
  readSchemaSource,
  releasedSchema,
} from './schema-source.js';

/** One package's verdict: what the schema report requires and what the changesets give. */
export interface PackageCheck {
  readonly name: string;
  readonly version: string;
  /** The schema package whose report applies (itself, or the one it re-exports). */
  readonly schemaPackage: string;
  readonly required: Bump;
  readonly pending: Bump;
  readonly ok: boolean;
  /** The first change that requires `required`. */
  readonly because?: string;
}

/** The release check over every schema package and the packages that re-export their types. */
export interface ReleaseCheck {
  readonly ok: boolean;
  readonly reports: readonly {
    readonly pkg: SchemaPackage;
    readonly baseline: string;
    readonly report: DiffReport;
    /** No earlier release exists (or it had no schema file): nothing can break. */
    readonly firstRelease: boolean;
  }[];
  readonly packages: readonly PackageCheck[];
}

function sourceFiles(dir: string, into: string[] = []): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return into;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (name === 'generated' || name === 'node_modules') continue;
    if (statSync(path).isDirectory()) sourceFiles(path, into);
    else if (name.endsWith('.ts')) into.push(path);
  }
  return into;
}

/** Workspace packages whose `src` re-exports (`export … from '<name>'`) a schema package's types. */
export function reExporters(root: string, name: string): string[] {
  const found: string[] = [];
  const pattern = new RegExp(
    `export\\s+(?:type\\s+)?(?:\\*|\\{[^}]*\\})(?:\\s+as\\s+\\w+)?\\s+from\\s+['"]${name.replace('/', '\\/')}['"]`,
  );
  let dirs: string[];
  try {
    dirs = readdirSync(join(root, 'packages'));
  } catch {
    return found;
  }
  for (const dir of dirs) {
    let pkgName: string;
    try {
      pkgName = (
        JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { name: string }
      ).name;
    } catch {
      continue;
    }
    if (pkgName === name) continue;
    if (sourceFiles(join(root, 'packages', dir, 'src')).some((f) => pattern.test(readFileSync(f, 'utf8'))))
      found.push(pkgName);
  }
  return found;
}

/**
 * Compares each schema package's working schema with the one it was last released with and checks
 * that the pending changesets bump it (and every package re-exporting its types) at least as much as
 * the report requires.
 */
export function checkRelease(root: string): ReleaseCheck {
  const pending = pendingBumps(root);
  const reports: { pkg: SchemaPackage; baseline: string; report: DiffReport; firstRelease: boolean }[] = [];
  const packages: PackageCheck[] = [];
  for (const pkg of SCHEMA_PACKAGES) {
    const version = packageVersion(root, pkg);
    const base = releasedSchema(root, pkg, version);
    const current = readSchemaSource(join(root, pkg.schema), root);
    const report = diffSchemas(
      { label: base.label, schema: base.schema },
      { label: pkg.schema, schema: current.schema },
    );
    const firstRelease = base.missing === true;
    reports.push({ pkg, baseline: base.label, report, firstRelease });
    // A first release breaks nobody: any bump will do, as long as there is one.
    const { bump, because } = firstRelease
      ? {
          bump: report.changes.length > 0 ? ('patch' as Bump) : ('none' as Bump),
          because: 'first release of the schema',
        }
      : requiredBump(report, version);
    for (const name of [pkg.name, ...reExporters(root, pkg.name)]) {
      const given = pending.get(name)?.bump ?? 'none';
      packages.push({
        name,
        version,
        schemaPackage: pkg.name,
        required: bump,
        pending: given,
        ok: bumpCovers(given, bump),
        ...(because === undefined ? {} : { because }),
      });
    }
  }
  return { ok: packages.every((p) => p.ok), reports, packages };
}

/** The check's outcome as lines for a terminal. */
export function describeReleaseCheck(check: ReleaseCheck): string[] {
  const lines: string[] = [];
  for (const { pkg, report, firstRelease } of check.reports) {
    const { breaking, additive, editorial } = report.summary;
    lines.push(
      firstRelease
        ? `${pkg.schema}: ${report.old}, so this is its first release (${report.changes.length} change(s) from nothing)`
        : `${pkg.schema} against ${report.old}: ${breaking} breaking, ${additive} additive, ${editorial} editorial`,
    );
  }
  for (const p of check.packages) {
    const status = p.ok ? 'ok' : 'NOT ENOUGH';
    const via = p.name === p.schemaPackage ? '' : ` (re-exports ${p.schemaPackage})`;
    lines.push(`  ${p.name}${via}: requires ${p.required}, pending changesets give ${p.pending} — ${status}`);
    if (!p.ok && p.because !== undefined)
      lines.push(
        `    requires ${p.required} because of: ${p.because}`,
        `    add a changeset: "${p.name}": ${p.required}`,
      );
  }
  return lines;
}

/** The changelog section for one schema package's release: its report in Markdown, or a first-release line. */
export function releaseNotes(entry: ReleaseCheck['reports'][number]): string {
  if (entry.firstRelease)
    return `### Schema changes\n\nFirst release of \`${entry.pkg.schema}\` (no earlier release to compare with).\n`;
  return formatMarkdown(entry.report, { heading: 'Schema changes', editorial: false });
}

/** Inserts `section` under the `## <version>` heading of a changesets CHANGELOG (at the top if there is none). */
export function insertReleaseNotes(changelog: string, version: string, section: string): string {
  const lines = changelog.split('\n');
  const at = lines.findIndex((l) => l.trim() === `## ${version}`);
  if (at < 0) return `${section}\n${changelog}`;
  lines.splice(at + 1, 0, '', ...section.trimEnd().split('\n'));
  return lines.join('\n');
}

/**
 * After `changeset version` (run by `npm run version-packages`): for each schema package whose version
 * changed since the last commit, the report against the schema of the version it had there goes into
 * its new CHANGELOG section. Returns the changelogs written.
 */
export function writeReleaseNotes(root: string): string[] {
  const written: string[] = [];
  for (const pkg of SCHEMA_PACKAGES) {
    const before = committedVersion(root, pkg);
    const now = packageVersion(root, pkg);
    const path = join(root, pkg.dir, 'CHANGELOG.md');
    if (before === undefined || before === now || !existsSync(path)) continue;
    const base = releasedSchema(root, pkg, before);
    const current = readSchemaSource(join(root, pkg.schema), root);
    const report = diffSchemas(
      { label: base.label, schema: base.schema },
      { label: pkg.schema, schema: current.schema },
    );
    const notes = releaseNotes({ pkg, baseline: base.label, report, firstRelease: base.missing === true });
    writeFileSync(path, insertReleaseNotes(readFileSync(path, 'utf8'), now, notes));
    written.push(path);
  }
  return written;
}
