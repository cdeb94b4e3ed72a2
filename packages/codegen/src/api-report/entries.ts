import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One entry point of a package: a subpath of its `exports` map with a `types` condition. */
export interface ApiEntry {
  /** The subpath as written in `exports`: `.`, `./adapter`, … */
  readonly subpath: string;
  /** The report's file name without extension: `index` for `.`, else the subpath's segments joined by `-`. */
  readonly reportName: string;
  /** The entry's declaration file, absolute. */
  readonly typesFile: string;
}

/** The package's name and the entry points whose surface its API report pins. */
export interface ApiPackage {
  readonly name: string;
  readonly entries: readonly ApiEntry[];
}

/**
 * Reads `package.json` in `packageDir` and lists every `exports` subpath that names a `types`
 * file (JSON files and `./package.json` have none, so they are left out), sorted by subpath.
 */
export function readApiPackage(packageDir: string): ApiPackage {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    name?: string;
    exports?: Record<string, unknown>;
  };
  if (typeof manifest.name !== 'string') throw new Error(`${packageDir}/package.json has no name`);
  const entries: ApiEntry[] = [];
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target !== 'object' || target === null) continue;
    const types = (target as Record<string, unknown>).types;
    if (typeof types !== 'string') continue;
    entries.push({ subpath, reportName: reportName(subpath), typesFile: join(packageDir, types) });
  }
  entries.sort((a, b) => (a.subpath < b.subpath ? -1 : a.subpath > b.subpath ? 1 : 0));
  return { name: manifest.name, entries };
}

function reportName(subpath: string): string {
  if (subpath === '.') return 'index';
  return subpath.replace(/^\.\//, '').replaceAll('/', '-');
}
