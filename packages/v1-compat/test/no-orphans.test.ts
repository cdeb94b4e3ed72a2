/**
 * No orphans: the bridge process (`bridge-main.ts`, i.e. runBridge on stdio) wraps an agent
 * started through a real wrapper script whose child ignores the end of its stdin and SIGTERM. When
 * the bridge's client goes away, or the bridge is told to stop, neither the wrapper nor the agent
 * may outlive it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture } from './helpers.js';

/** Whether a process runs (a zombie, exited but not reaped, does not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function until(test: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !test(); waited += 50) {
    if (waited > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the bridge in front of the wrapper script; resolves once the stubborn agent runs. */
async function start(serve: 'v1' | 'v2') {
  const pidFile = join(mkdtempSync(join(tmpdir(), 'v1-compat-orphans-')), 'pids');
  const bridge: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', fixture('bridge-main.ts'), serve, fixture('agent-wrapper.sh')],
    { env: { ...process.env, PID_FILE: pidFile }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  bridge.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  bridge.stdout?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    bridge.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the agent');
  const [agent, wrapper] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number) as [number, number];
  leftovers.push(agent, wrapper);
  expect(wrapper).not.toBe(bridge.pid);
  expect(running(agent) && running(wrapper)).toBe(true);
  return { bridge, exited, agent, wrapper, stderr: () => stderr };
}

describe('the bridge process leaves no orphans', () => {
  for (const serve of ['v2', 'v1'] as const) {
    it(`stops the wrapper script and its stubborn agent, then exits 0, when its client closes stdin (--serve ${serve})`, async () => {
      const { bridge, exited, agent, wrapper, stderr } = await start(serve);
      bridge.stdin?.end();
      expect(await exited).toEqual({ code: 0, signal: null });
      expect({ agent: running(agent), wrapper: running(wrapper) }).toEqual({ agent: false, wrapper: false });
      // The agent did get (and ignore) the end of stdin and SIGTERM before it was killed.
      expect(stderr()).toContain('stubborn agent: ignoring the end of stdin');
      expect(stderr()).toContain('stubborn agent: ignoring SIGTERM');
    });
  }

  it('stops the wrapper script and its stubborn agent when the bridge gets SIGTERM, then exits 143', async () => {
    const { bridge, exited, agent, wrapper } = await start('v2');
    bridge.kill('SIGTERM');
    expect(await exited).toEqual({ code: 143, signal: null });
    expect({ agent: running(agent), wrapper: running(wrapper) }).toEqual({ agent: false, wrapper: false });
  });

  it('still stops the wrapper script and its stubborn agent when a second SIGTERM comes during the shutdown, and exits 143', async () => {
    const { bridge, exited, agent, wrapper, stderr } = await start('v2');
    bridge.kill('SIGTERM');
    // The graceful shutdown has begun: the agent got (and ignores) the end of its stdin.
    await until(() => stderr().includes('stubborn agent: ignoring the end of stdin'), 'the shutdown');
    bridge.kill('SIGTERM');
    expect(await exited).toEqual({ code: 143, signal: null });
    expect({ agent: running(agent), wrapper: running(wrapper) }).toEqual({ agent: false, wrapper: false });
  });
});
