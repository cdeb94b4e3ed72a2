import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether spawned processes get a process group of their own (POSIX; Windows has no process
 * groups, there only the process itself is signalled).
 */
export const PROCESS_GROUPS = process.platform !== 'win32';

/** One line of /proc/<pid>/stat, the parts we need. */
interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  zombie: boolean;
  /** Start time in clock ticks since boot: with the pid, names one process even after pid reuse. */
  start: string;
}

function parseStat(pid: number, stat: string): ProcStat {
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice threads itrealvalue starttime …" — comm may hold spaces and ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    zombie: fields[0] === 'Z',
    start: fields[19] ?? '',
  };
}

/** How long one read of /proc serves every tree that asks (many agents stopping at once share it). */
const TABLE_TTL_MS = 20;
let lastTable: { at: number; table: ProcStat[] } | undefined;

/**
 * Every process of this machine (Linux), or undefined where /proc cannot be read. A read at most
 * {@link TABLE_TTL_MS} old is reused unless `fresh`.
 */
function processTable(fresh = false): ProcStat[] | undefined {
  if (process.platform !== 'linux') return undefined;
  const now = Date.now();
  if (!fresh && lastTable !== undefined && now - lastTable.at < TABLE_TTL_MS) return lastTable.table;
  const table = readProcessTable();
  if (table !== undefined) lastTable = { at: now, table };
  return table;
}

function readProcessTable(): ProcStat[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const table: ProcStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      table.push(parseStat(Number(entry), readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // Gone meanwhile.
    }
  }
  return table;
}

/** Whether the process `pid` that started at `start` still runs (not a zombie). */
function stillRunning(pid: number, start: string): boolean {
  try {
    const stat = parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return !stat.zombie && stat.start === start;
  } catch {
    return false;
  }
}

/** Sends `signal` to every process of group `pgid`; a group that is gone is no error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * What one spawned process stands for: its process group and, on Linux, every descendant of a
 * member, also one that moved to a process group of its own (an agent's tool command, the agent of
 * an `acp-kit bridge` that runs inside the group). Each descendant seen once is remembered (by pid
 * and start time), so one whose parent was killed — and which was re-parented away from the
 * group's tree — is still known, still waited for and still killed. Zombies do not count: an
 * exited process whose parent has not reaped it yet (or never will) is gone. Without /proc only the
 * group itself is known (any member, zombie or not, counts).
 */
export class ProcessTree {
  readonly #pgid: number;
  /** Descendants seen outside the group, by pid, with their start time. */
  readonly #seen = new Map<number, string>();

  constructor(pgid: number) {
    this.#pgid = pgid;
  }

  /** The group's ID (the leader's pid). */
  get pgid(): number {
    return this.#pgid;
  }

  /**
   * Looks again (`fresh`: at /proc now, not at a read a few milliseconds old): whether anything of
   * the tree runs. Remembers every descendant it sees.
   */
  running(fresh = false): boolean {
    const table = processTable(fresh);
    if (table === undefined) {
      try {
        process.kill(-this.#pgid, 0);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    const members = new Set(table.filter((p) => p.pgrp === this.#pgid).map((p) => p.pid));
    const byParent = new Map<number, ProcStat[]>();
    for (const p of table) {
      const siblings = byParent.get(p.ppid);
      if (siblings) siblings.push(p);
      else byParent.set(p.ppid, [p]);
    }
    const queue = [...members];
    for (let i = 0; i < queue.length; i++) {
      for (const child of byParent.get(queue[i]!) ?? []) {
        if (members.has(child.pid)) continue;
        members.add(child.pid);
        queue.push(child.pid);
        if (!child.zombie) this.#seen.set(child.pid, child.start);
      }
    }
    const byPid = new Map(table.map((p) => [p.pid, p]));
    for (const [pid, start] of this.#seen) {
      const p = byPid.get(pid);
      if (p === undefined || p.zombie || p.start !== start) this.#seen.delete(pid);
    }
    const running = table.some((p) => p.pgrp === this.#pgid && !p.zombie) || this.#seen.size > 0;
    // A read a few milliseconds old may predate the process itself: "gone" is only ever decided
    // on a fresh one.
    return running || fresh ? running : this.running(true);
  }

  /** Sends `signal` to the group (a nested acp-kit in it handles SIGTERM by ending its own tree). */
  signal(signal: NodeJS.Signals): void {
    signalGroup(this.#pgid, signal);
  }

  /**
   * SIGKILL to the group, to every descendant seen (read before the first kill, so none is missed
   * for being re-parented by it) and to each descendant's own group. Synchronous.
   */
  kill(): void {
    this.running(true);
    const groups = new Set<number>([this.#pgid]);
    for (const [pid, start] of this.#seen) {
      try {
        const stat = parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
        if (stat.start === start) groups.add(stat.pgrp);
      } catch {
        // Gone.
      }
    }
    for (const group of groups) signalGroup(group, 'SIGKILL');
    for (const [pid, start] of this.#seen) {
      if (!stillRunning(pid, start)) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  }
}

/**
 * The process trees {@link spawnTransport} started that may still hold a process. An entry leaves
 * once its tree is seen empty; until then it is ended with SIGKILL when this process exits (see
 * {@link killTrackedGroups}).
 */
const tracked = new Set<ProcessTree>();
let exitHookInstalled = false;

/** The signals that end a Node process by default and that a terminal or supervisor sends. */
const FATAL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A spawned group no longer gets the terminal's Ctrl-C with us, and a signal that ends this process
 * runs no `exit` handler. So, when nothing else in this process handles such a signal (then the
 * default would end it), the tracked trees are killed first and the signal is raised again with
 * its default action: this process still dies of it, and takes what it started along. A program
 * that handles the signal itself (as the acp-kit commands do through {@link onTerminationSignal})
 * decides on its own.
 */
function onFatalSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killTrackedGroups();
  for (const name of FATAL_SIGNALS) process.off(name, onFatalSignal);
  process.kill(process.pid, signal);
}

/**
 * Remembers a tree this process started, so it is ended when this process exits, however it
 * exits short of SIGKILL: normally, by `process.exit`, or after a signal handled by
 * {@link onTerminationSignal}.
 */
export function trackTree(tree: ProcessTree): void {
  tracked.add(tree);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killTrackedGroups);
  for (const signal of FATAL_SIGNALS) process.on(signal, onFatalSignal);
}

/** Forgets a tree that is gone (its group ID may be reused from now on). */
export function untrackTree(tree: ProcessTree): void {
  tracked.delete(tree);
}

/**
 * Kills (SIGKILL) every process tree {@link spawnTransport} started that was not seen gone.
 * Synchronous, so it may run in an `exit` handler, where it runs by itself: nothing this process
 * started outlives it. Returns how many trees were signalled.
 */
export function killTrackedGroups(): number {
  const trees = [...tracked];
  for (const tree of trees) tree.kill();
  tracked.clear();
  return trees.length;
}
