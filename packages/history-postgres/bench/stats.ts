import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** The q-quantile (0..1) of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Median, 99th percentile and count of latency samples (ms). */
export interface Latencies {
  readonly p50: number;
  readonly p99: number;
  readonly count: number;
}

/** The {@link Latencies} of `values`. */
export const latencies = (values: readonly number[]): Latencies => ({
  p50: quantile(values, 0.5),
  p99: quantile(values, 0.99),
  count: values.length,
});

/** `value` with `digits` decimals. */
export const fixed = (value: number, digits = 2): string => value.toFixed(digits);

/** The machine's load average (1/5/15 min), as `uptime` prints it. */
export const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

/** CPU time (user + system, ms) this process has used so far. */
export const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const TICK_MS = 10; // USER_HZ is 100 on Linux

function statFields(pid: number): string[] | undefined {
  try {
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time (ms) another local process has used so far (Linux), or undefined. */
export function processCpuMs(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * CPU time (ms) a PostgreSQL server has used so far: the postmaster, its live children (backends,
 * WAL writer, checkpointer…) and the children it has reaped. Linux only; undefined elsewhere or
 * when the server is not a local process.
 */
export function serverCpuMs(postmasterPid: number | undefined): number | undefined {
  if (postmasterPid === undefined) return undefined;
  const own = statFields(postmasterPid);
  if (own === undefined) return undefined;
  // utime, stime, cutime, cstime are fields 14..17 (indices 11..14 from field 3).
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    if (fields === undefined || Number(fields[1]) !== postmasterPid) continue; // field 4: ppid
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_MS;
}

/** CPU time used between two readings, for printing ("n/a" when unknown). */
export function cpuSpent(before: number | undefined, after: number | undefined): string {
  return before === undefined || after === undefined ? 'n/a' : `${fixed((after - before) / 1000, 2)} s`;
}
