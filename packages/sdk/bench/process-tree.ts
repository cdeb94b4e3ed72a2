/**
 * CPU time and resident memory of a process together with its descendants, from /proc (Linux):
 * `acp-kit serve` runs one agent process per connection under it, and what hosting costs is the
 * whole tree. For a process without children it is that process alone. NaN where /proc is
 * missing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { processCpuMs } from './process-cpu.js';

/** `pid` and every process descended from it that is alive now. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pid];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(entry));
      children.set(parent, list);
    } catch {
      // Exited while we looked.
    }
  }
  const tree: number[] = [];
  const visit = (at: number): void => {
    tree.push(at);
    for (const child of children.get(at) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/** CPU time (user + system, ms) of `pids` so far, summed. */
export function treeCpuMs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
}

/** Resident memory (bytes, VmRSS) of `pids` now, summed. */
export function treeRssBytes(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      sum += match ? Number(match[1]) * 1024 : Number.NaN;
    } catch {
      return Number.NaN;
    }
  }
  return sum;
}
