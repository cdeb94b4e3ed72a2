import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readApiPackage } from './entries.js';
import { lineDiff } from './line-diff.js';
import { collectSurfaces, renderReport } from './render.js';

/** The command that rewrites every package's report, printed whenever a check fails. */
export const API_UPDATE_COMMAND = 'npm run api:update';

/** What {@link runApiReport} found or wrote for one package. */
export interface ApiReportResult {
  readonly packageName: string;
  /** Report files (relative to the package) whose contents differ from the built surface, or that are stale. */
  readonly changed: readonly string[];
  /** Human-readable lines: per report, a diff in check mode, or what was written. */
  readonly lines: readonly string[];
  /** Entry files that re-export with `export *` (the rule is named exports only): a failure in both modes. */
  readonly problems: readonly string[];
  /** Per entry: its subpath, exported names and how many lack TSDoc. */
  readonly counts: readonly { subpath: string; names: number; undocumented: number }[];
}

/** Options of {@link runApiReport}. */
export interface ApiReportOptions {
  /** The package directory (holds `package.json` and the built `dist/`). */
  readonly packageDir: string;
  /** Compare instead of write: the default. */
  readonly check: boolean;
  /** Where the reports live, relative to the package: `api`. */
  readonly reportDir?: string;
}

/**
 * Builds the API report of every entry point of the package in `packageDir` from its built
 * declaration files and either writes them to `api/<entry>.api.md` or compares them with the
 * checked-in files (a missing, differing or stale file is a change).
 */
export function runApiReport(options: ApiReportOptions): ApiReportResult {
  const pkg = readApiPackage(options.packageDir);
  const reportDir = join(options.packageDir, options.reportDir ?? 'api');
  const surfaces = collectSurfaces(pkg.entries);
  const wanted = new Map<string, string>();
  for (const surface of surfaces) {
    wanted.set(`${surface.entry.reportName}.api.md`, renderReport(pkg.name, surface));
  }
  const existing = existsSync(reportDir)
    ? readdirSync(reportDir).filter((file) => file.endsWith('.api.md'))
    : [];
  const changed: string[] = [];
  const lines: string[] = [];
  for (const [file, contents] of wanted) {
    const path = join(reportDir, file);
    const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (before === contents) continue;
    changed.push(`${options.reportDir ?? 'api'}/${file}`);
    if (options.check) {
      lines.push(before === undefined ? `--- api/${file} is missing` : `--- api/${file} (reported)`);
      if (before !== undefined) lines.push(`+++ api/${file} (built)`, ...lineDiff(before, contents));
    } else {
      mkdirSync(reportDir, { recursive: true });
      writeFileSync(path, contents);
      lines.push(`wrote api/${file}`);
    }
  }
  for (const file of existing) {
    if (wanted.has(file)) continue;
    changed.push(`${options.reportDir ?? 'api'}/${file}`);
    if (options.check) lines.push(`--- api/${file} reports an entry point the package no longer has`);
    else {
      rmSync(join(reportDir, file));
      lines.push(`deleted api/${file}`);
    }
  }
  const counts = surfaces.map((surface) => ({
    subpath: surface.entry.subpath,
    names: surface.exports.length,
    undocumented: surface.exports.filter((item) => !item.documented).length,
  }));
  changed.sort();
  const problems = surfaces.flatMap((surface) =>
    surface.wildcards.map(
      (statement) =>
        `${surface.entry.subpath} (${surface.entry.typesFile}): \`${statement}\` — name each export instead of \`export *\``,
    ),
  );
  return { packageName: pkg.name, changed, lines, counts, problems };
}
