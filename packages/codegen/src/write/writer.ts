import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { EmittedFile } from '../emit/emitted-file.js';

/** What writing a set of files into a directory would do. */
export interface WritePlan {
  /** Files that do not exist yet. */
  readonly created: readonly string[];
  /** Files whose contents differ. */
  readonly changed: readonly string[];
  /** Files in the directory that no emitter produces any more. */
  readonly deleted: readonly string[];
  /** Files already up to date. */
  readonly unchanged: readonly string[];
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current).sort()) {
      const full = join(current, entry);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}

/** Compares emitted files with the output directory without changing anything. */
export function planWrite(outDir: string, files: readonly EmittedFile[]): WritePlan {
  const root = resolve(outDir);
  const created: string[] = [];
  const changed: string[] = [];
  const unchanged: string[] = [];
  const emitted = new Set<string>();
  for (const file of files) {
    emitted.add(file.path);
    const target = join(root, file.path);
    if (!existsSync(target)) created.push(file.path);
    else if (readFileSync(target, 'utf8') !== file.contents) changed.push(file.path);
    else unchanged.push(file.path);
  }
  const deleted = listFiles(root).filter((path) => !emitted.has(path));
  return { created, changed, deleted, unchanged };
}

/** True when the plan would change nothing. */
export function isUpToDate(plan: WritePlan): boolean {
  return plan.created.length + plan.changed.length + plan.deleted.length === 0;
}

/** Brings the output directory in line with the emitted files: writes what differs, deletes strays. */
export function applyWrite(
  outDir: string,
  files: readonly EmittedFile[],
  plan: WritePlan = planWrite(outDir, files),
): WritePlan {
  const root = resolve(outDir);
  const dirty = new Set([...plan.created, ...plan.changed]);
  for (const file of files) {
    if (!dirty.has(file.path)) continue;
    const target = join(root, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.contents);
  }
  for (const path of plan.deleted) rmSync(join(root, path));
  return plan;
}
