/**
 * What the no-orphans tests look at: the processes of this machine, read from /proc. A command
 * under test runs in a process group of its own, as a command started from a shell does (so a
 * signal to it is not one to the test runner); every process it starts is recorded while it runs,
 * and afterwards none of them, and no member of any group a stubborn agent ran in, may still run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from '../harness.js';

/** The stubborn agent: ignores the end of its stdin and SIGTERM, records "<pid> <group>" in $PID_FILE. */
export const STUBBORN = fileURLToPath(new URL('./stubborn-agent.mjs', import.meta.url));

/** The stubborn agent as `sh -c` runs it: the shell stays (no exec) as the agent's parent. */
export const BEHIND_SH = ['sh', '-c', `"${process.execPath}" "${STUBBORN}"; echo "sh: the agent exited" >&2`];

interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  start: string;
  zombie: boolean;
}

function table(): Proc[] {
  const procs: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        pgrp: Number(fields[2]),
        zombie: fields[0] === 'Z',
        start: fields[19]!,
      });
    } catch {
      // gone meanwhile
    }
  }
  return procs;
}

/** The running (not zombie) child processes of `pid`. */
export function childrenOf(pid: number): number[] {
  return table()
    .filter((p) => p.ppid === pid && !p.zombie)
    .map((p) => p.pid);
}

/** This test process's own group: never one a test looks for or kills. */
const ownGroup = table().find((p) => p.pid === process.pid)!.pgrp;

/** A command under test: `node acp-kit <args…>` in a process group of its own. */
export interface Command {
  child: ChildProcess;
  /** Resolves with how it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  stdout(): string;
  /** The file the stubborn agents append "<pid> <group>" to. */
  pidFile: string;
  /** The stubborn agents started so far: [pid, group] each. */
  agents(): [number, number][];
  /** Resolves once `n` stubborn agents have started. */
  agentsStarted(n: number): Promise<[number, number][]>;
  /** Records every descendant of the command running now (call it while they run). */
  look(): void;
  /** Every recorded descendant, stubborn agent and member of their groups still running. */
  survivors(): number[];
}

const commands: Command[] = [];

/** Waits for `test`, polling, at most `ms`. */
export async function until(test: () => boolean, what: string, ms = 15_000): Promise<void> {
  for (let waited = 0; !test(); waited += 25) {
    if (waited > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts `node acp-kit <args…>` with stdin, stdout and stderr piped. */
export function startCommand(args: string[]): Command {
  const pidFile = join(mkdtempSync(join(tmpdir(), 'acp-kit-no-orphans-')), 'pids');
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, PID_FILE: pidFile },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let err = '';
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    err += text;
  });
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    out += text;
  });
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const seen = new Map<number, string>();
  const agents = (): [number, number][] =>
    existsSync(pidFile)
      ? readFileSync(pidFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.split(' ').map(Number) as [number, number])
      : [];
  const look = (): void => {
    const procs = table();
    const queue = [child.pid!];
    for (let i = 0; i < queue.length; i++) {
      for (const p of procs) {
        if (p.ppid !== queue[i] || seen.has(p.pid)) continue;
        seen.set(p.pid, p.start);
        queue.push(p.pid);
      }
    }
  };
  const command: Command = {
    child,
    exited,
    stderr: () => err,
    stdout: () => out,
    pidFile,
    agents,
    agentsStarted: async (n) => {
      await until(() => agents().length >= n, `${n} agent(s) to start`);
      look();
      return agents();
    },
    look,
    survivors: () => {
      const groups = new Set(agents().map(([, group]) => group));
      groups.delete(ownGroup);
      const pids = new Set(agents().map(([pid]) => pid));
      return table()
        .filter(
          (p) =>
            !p.zombie &&
            p.pid !== child.pid &&
            (groups.has(p.pgrp) || pids.has(p.pid) || seen.get(p.pid) === p.start),
        )
        .map((p) => p.pid);
    },
  };
  commands.push(command);
  return command;
}

/** For afterEach: kills (SIGKILL) every command started and whatever it left, by pid. */
export function killCommands(): void {
  for (const command of commands.splice(0)) {
    command.child.kill('SIGKILL');
    for (const pid of command.survivors()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}
