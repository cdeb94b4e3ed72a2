/**
 * CPU time (user + system) so far, in ms: of this process, and of another one read from
 * /proc/<pid>/stat (Linux). Printed beside wall-clock figures, so a loaded machine that stretches
 * wall time (the other processes' time slices) does not mislead: CPU per chunk or per receipt
 * shifts far less with load than wall time does.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** This process's CPU time so far. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Another process's CPU time so far; NaN where /proc is not available. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state, field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
