/**
 * The top self-time functions of a V8 CPU profile (the `.cpuprofile` files `node --cpu-prof`
 * writes): each sample's time delta goes to the function on top of the stack, summed per function
 * (name, file and line), as a share of the busy time (every sample but `(idle)`). Node writes one
 * profile per thread (tsx's module hooks run in a thread of their own); the main thread's is the
 * one with the most busy time. The capacity benchmark prints them for the agent of one cell with
 * `CAPACITY_PROFILE=1`, to show where the agent's time goes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One function's self time. */
export interface SelfTime {
  name: string;
  where: string;
  ms: number;
  /** Of the profile's busy time. */
  share: number;
}

/** A profile's self time per function, and its busy time (ms). */
function selfTimes(profile: CpuProfile): { busyMs: number; functions: SelfTime[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, SelfTime>();
  let busyMs = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    busyMs += ms;
    const name = frame.functionName || '(anonymous)';
    const where = frame.url
      ? `${frame.url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${name} ${where}`;
    const entry = totals.get(key) ?? { name, where, ms: 0, share: 0 };
    entry.ms += ms;
    totals.set(key, entry);
  });
  const functions = [...totals.values()].map((entry) => ({ ...entry, share: entry.ms / busyMs }));
  return { busyMs, functions: functions.sort((a, b) => b.ms - a.ms) };
}

/** The `top` functions by self time of the main thread's profile in `dir`, its path and busy time. */
export function topSelfTime(
  dir: string,
  top: number,
): { file: string; busyMs: number; functions: SelfTime[] } {
  const found = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
  if (found.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const profiles = found.map((name) => ({
    file: join(dir, name),
    ...selfTimes(JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile),
  }));
  const main = profiles.sort((a, b) => b.busyMs - a.busyMs)[0]!;
  return { file: main.file, busyMs: main.busyMs, functions: main.functions.slice(0, top) };
}
