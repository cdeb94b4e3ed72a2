/**
 * spawnTransport runs each process in a process group of its own and ends all of it: a wrapper
 * (`sh -c`) and the stubborn process behind it that ignores the end of its stdin and SIGTERM, a
 * descendant that moved to a group of its own, and — when the program that started them ends
 * without shutting them down, or is told twice to stop — whatever is left. Checked with /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnTransport } from '../../src/transports/index.js';

const stubborn = fileURLToPath(new URL('./fixtures/stubborn-process.mjs', import.meta.url));
const spawner = fileURLToPath(new URL('./fixtures/spawner.ts', import.meta.url));

/** This process's own group: never one of the groups a test looks for (or kills). */
const ownGroup = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2]);

/** The processes (not zombies) whose pid or process group is one of `ids` (this process's own group excepted). */
function survivors(ids: readonly number[]): number[] {
  ids = ids.filter((id) => id !== ownGroup && id !== process.pid);
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state !== 'Z' && (ids.includes(Number(entry)) || ids.includes(Number(pgrp))))
      found.push(Number(entry));
  }
  return found;
}

/** Every pid and process group the stubborn processes wrote to `pidFile`. */
function recorded(pidFile: string): number[] {
  return readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number);
}

async function until(test: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !test(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Pids (never groups) to kill after a test, should it fail. */
const leftovers: number[] = [];
const started: ChildProcess[] = [];
/** PID files whose processes to kill after a test, should it fail. */
const pidFiles: string[] = [];
afterEach(() => {
  for (const file of pidFiles.splice(0)) {
    if (existsSync(file)) leftovers.push(...recorded(file).filter((_, i) => i % 2 === 0));
  }
  for (const pid of leftovers.splice(0)) {
    // Only a process of this test (the pid may have been reused since).
    if (!survivors([pid]).includes(pid)) continue;
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('stubborn-process')) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

function pidFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sdk-process-groups-')), 'pids');
  pidFiles.push(file);
  return file;
}

async function startStubborn(script: string, file: string) {
  const transport = spawnTransport('sh', ['-c', script], {
    name: 'stubborn',
    env: { ...process.env, PID_FILE: file },
  });
  leftovers.push(transport.child.pid!);
  await until(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'), 'the stubborn process');
  leftovers.push(recorded(file)[0]!);
  return transport;
}

describe.skipIf(process.platform !== 'linux')('spawned process groups', () => {
  it('shutdown ends a process behind sh -c that ignores the end of stdin and SIGTERM, and the shell', async () => {
    const file = pidFile();
    const transport = await startStubborn(`"${process.execPath}" "${stubborn}"; true`, file);
    const [agent, group] = recorded(file) as [number, number];
    expect(group).toBe(transport.child.pid);
    expect(survivors([group])).toContain(agent);
    await transport.shutdown({ graceMs: 200 });
    expect(survivors([transport.child.pid!, agent, group])).toEqual([]);
  }, 15_000);

  it('shutdown also ends a descendant that moved to a process group of its own', async () => {
    const file = pidFile();
    const transport = await startStubborn(`setsid "${process.execPath}" "${stubborn}"; true`, file);
    const [agent, group] = recorded(file) as [number, number];
    expect(group).not.toBe(transport.child.pid);
    await transport.shutdown({ graceMs: 200 });
    expect(survivors([agent, transport.child.pid!])).toEqual([]);
  }, 15_000);

  it('shutdown right after spawning stops a process, also one started just after another was looked at', async () => {
    const file = pidFile();
    const script = `"${process.execPath}" "${stubborn}"; true`;
    const env = { ...process.env, PID_FILE: file };
    const first = spawnTransport('sh', ['-c', script], { env });
    const firstStopped = first.shutdown({ graceMs: 200 });
    const second = spawnTransport('sh', ['-c', script], { env });
    const secondStopped = second.shutdown({ graceMs: 200 });
    leftovers.push(first.child.pid!, second.child.pid!);
    await Promise.all([firstStopped, secondStopped]);
    expect(survivors([first.child.pid!, second.child.pid!])).toEqual([]);
  }, 15_000);

  it('a program that exits without shutting its processes down takes them along', async () => {
    const file = pidFile();
    const program = spawn(process.execPath, ['--import', 'tsx', spawner, 'exit', stubborn], {
      env: { ...process.env, PID_FILE: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    started.push(program);
    const exited = new Promise<number | null>((resolve) => program.once('exit', (code) => resolve(code)));
    expect(await exited).toBe(0);
    const ids = recorded(file);
    leftovers.push(ids[0]!);
    // As below: the groups were sent SIGKILL before the program exited, and a killed process
    // stays in /proc until the system reaps it (in a full sdk run under load it was still listed).
    await expect.poll(() => survivors(ids), { timeout: 5000 }).toEqual([]);
  }, 15_000);

  it('a program that handles no signal still dies of SIGTERM, and takes its processes along', async () => {
    const file = pidFile();
    const program = spawn(process.execPath, ['--import', 'tsx', spawner, 'idle', stubborn], {
      env: { ...process.env, PID_FILE: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    started.push(program);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      program.once('exit', (_code, signal) => resolve(signal)),
    );
    let out = '';
    program.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    await until(() => out.includes('ready'), 'the spawner');
    const ids = recorded(file);
    leftovers.push(ids[0]!);
    program.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    // SIGKILL went to the groups before the program died; a killed process stays in /proc until
    // the system reaps it, which a loaded machine does a moment later.
    await expect.poll(() => survivors(ids), { timeout: 5000 }).toEqual([]);
  }, 15_000);

  it('a second SIGTERM during a long graceful stop kills every spawned group at once and exits 143', async () => {
    const file = pidFile();
    const program = spawn(process.execPath, ['--import', 'tsx', spawner, 'signals', stubborn], {
      env: { ...process.env, PID_FILE: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    started.push(program);
    const exited = new Promise<number | null>((resolve) => program.once('exit', (code) => resolve(code)));
    let out = '';
    program.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    await until(() => out.includes('ready'), 'the spawner');
    const ids = recorded(file);
    leftovers.push(ids[0]!);
    program.kill('SIGTERM');
    // The graceful stop waits a minute per step for a process that ignores EOF and SIGTERM.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(survivors(ids).length).toBeGreaterThan(0);
    program.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(survivors(ids)).toEqual([]);
  }, 15_000);
});
