/**
 * The v1 client services (`fs/*`, `terminal/*`) the bridge serves itself, every side a real
 * process: our v2 `Client` over pipes to the bridge process (`bridge-main.ts v2`, i.e. `runBridge`
 * as `acp-kit bridge --serve v2` runs it), which spawns the official SDK's v1 fixture agent. The
 * agent reads, writes and runs commands through its client (prompt `client <steps>`), as published
 * agents whose edit tool only calls `fs/write_text_file` do; the files are real, the terminals are
 * real child processes, and the v2 client sees each write as a diff and each terminal as a
 * display terminal.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildProcessTransport, Client, Connection, ErrorCodes, spawnTransport } from '@acp-kit/sdk';
import type { SessionId } from '@acp-kit/schema';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_TERMINALS_PER_SESSION, MAX_TEXT_FILE_BYTES } from '../src/v1-agent-as-v2/client-services.js';
import { fixture, textOf, UpdateLog } from './helpers.js';

const TIMEOUT = 60_000;
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-services-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
/** A fresh directory under the test's scratch directory. */
function freshDir(name: string): string {
  const dir = join(scratch, `${++dirs}-${name}`);
  mkdirSync(dir);
  return dir;
}

/** The bridge process in front of the official v1 fixture agent, and our v2 client over its stdio. */
async function bridgeClient(options: { noServices?: boolean; env?: Record<string, string> } = {}): Promise<{
  client: Client;
  transport: ChildProcessTransport;
  log: UpdateLog;
}> {
  const transport = spawnTransport(
    process.execPath,
    [
      '--import',
      'tsx',
      fixture('bridge-main.ts'),
      ...(options.noServices ? ['--no-client-services'] : []),
      'v2',
      process.execPath,
      '--import',
      'tsx',
      fixture('official-v1-agent.ts'),
    ],
    {
      name: 'bridge',
      env: { ...process.env, V1_CLIENT_SERVICES: '1', ...options.env },
      onStderr: (text) => process.stderr.write(text),
    },
  );
  const connection = new Connection(transport);
  const log = new UpdateLog().tap(connection);
  const client = new Client(connection, { info: { name: 'test-client', version: '1' } });
  cleanup.push(async () => {
    client.close();
    await transport.shutdown({ graceMs: 2000 });
  });
  await client.initialize();
  return { client, transport, log };
}

type Step =
  | { request: string; params?: Record<string, unknown> }
  | { capabilities: true }
  | { until: string }
  | { showTerminal: true };
type Outcome = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** Runs the steps in the agent (prompt `client <steps>`); the outcome of each, in order. */
async function steps(client: Client, sessionId: SessionId, list: Step[]): Promise<Outcome[]> {
  const end = await client.promptToEnd(sessionId, [{ type: 'text', text: `client ${JSON.stringify(list)}` }]);
  expect(end.stopReason).toBe('end_turn');
  const messages = client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'agent_message');
  return JSON.parse(textOf(messages.at(-1)?.content)) as Outcome[];
}

/** The result of a step that must have succeeded. */
function resultOf<T>(outcome: Outcome | undefined): T {
  if (outcome === undefined || !('result' in outcome))
    throw new Error(`no result: ${JSON.stringify(outcome)}`);
  return outcome.result as T;
}

const write = (path: string, content: string | { $repeat: [string, number] }): Step => ({
  request: 'fs/write_text_file',
  params: { path, content },
});
const read = (path: string, more: Record<string, unknown> = {}): Step => ({
  request: 'fs/read_text_file',
  params: { path, ...more },
});
const create = (command: string, args: string[], more: Record<string, unknown> = {}): Step => ({
  request: 'terminal/create',
  params: { command, args, ...more },
});
const onTerminal = (request: string): Step => ({ request, params: { terminalId: '$term' } });

/** Whether a process (or, with a negative pid, a process group) still exists (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return pid > 0;
  }
}

/**
 * Whether the process is gone within a bounded wait: a SIGKILLed process disappears a moment after
 * the signal, once the kernel has run it down.
 */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  return !alive(pid);
}

describe('the bridge serves fs/* to the v1 agent', () => {
  it('tells the agent it can read and write files and run terminals', { timeout: TIMEOUT }, async () => {
    const { client } = await bridgeClient();
    const sessionId = await client.newSession(freshDir('caps'));
    const [caps] = await steps(client, sessionId, [{ capabilities: true }]);
    expect(caps?.result).toMatchObject({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
  });

  it('writes the file on disk and shows the v2 client the write as a diff tool call', {
    timeout: TIMEOUT,
  }, async () => {
    const { client, log } = await bridgeClient();
    const cwd = freshDir('write');
    writeFileSync(join(cwd, 'notes.txt'), 'one\ntwo\nthree\n');
    const sessionId = await client.newSession(cwd);
    const outcomes = await steps(client, sessionId, [
      write(join(cwd, 'notes.txt'), 'one\nTWO\nthree\n'),
      write(join(cwd, 'src', 'new.ts'), 'export {};\n'),
      read(join(cwd, 'notes.txt')),
      read(join(cwd, 'notes.txt'), { line: 2, limit: 1 }),
    ]);
    expect(outcomes).toEqual([
      { result: {} },
      { result: {} },
      { result: { content: 'one\nTWO\nthree\n' } },
      { result: { content: 'TWO\n' } },
    ]);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    expect(readFileSync(join(cwd, 'src', 'new.ts'), 'utf8')).toBe('export {};\n');

    // The write is the turn's first sign of life: the prompt is inserted (and running) before it.
    const kinds = log.updates.map((u) =>
      u.sessionUpdate === 'tool_call_update' ? `tool_call_update:${u.kind}` : u.sessionUpdate,
    );
    expect(kinds.indexOf('user_message')).toBeGreaterThanOrEqual(0);
    expect(kinds.indexOf('user_message')).toBeLessThan(kinds.indexOf('tool_call_update:edit'));
    expect(kinds.indexOf('state_update')).toBeLessThan(kinds.indexOf('tool_call_update:edit'));
    const edits = client.store
      .snapshot(sessionId)
      .toolCalls.filter((call) => call.fields.kind === 'edit')
      .map((call) => call.fields);
    expect(edits).toEqual([
      expect.objectContaining({
        status: 'completed',
        locations: [{ path: join(cwd, 'notes.txt') }],
        content: [
          {
            type: 'diff',
            changes: [
              {
                operation: 'modify',
                path: join(cwd, 'notes.txt'),
                oldText: 'one\ntwo\nthree\n',
                newText: 'one\nTWO\nthree\n',
              },
            ],
          },
        ],
      }),
      expect.objectContaining({
        status: 'completed',
        content: [
          {
            type: 'diff',
            changes: [{ operation: 'add', path: join(cwd, 'src', 'new.ts'), newText: 'export {};\n' }],
          },
        ],
      }),
    ]);
  });

  it('refuses paths outside the session directories, naming the path and the allowed roots', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await bridgeClient();
    const cwd = freshDir('confined');
    const extra = freshDir('extra');
    const outside = freshDir('outside');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, join(cwd, 'escape'));
    const { sessionId } = await client.createSession({ cwd, mcpServers: [], additionalDirectories: [extra] });
    const outcomes = await steps(client, sessionId, [
      read(join(outside, 'secret.txt')),
      write(join(outside, 'planted.txt'), 'no'),
      write(`${cwd}/../${outside.split('/').at(-1)}/dots.txt`, 'no'),
      read(join(cwd, 'escape', 'secret.txt')),
      write(join(cwd, 'escape', 'through-link.txt'), 'no'),
      write('relative.txt', 'no'),
      write(join(extra, 'allowed.txt'), 'yes'),
      create('true', [], { cwd: outside }),
    ]);
    const refused = outcomes.slice(0, 6).concat(outcomes.slice(7));
    for (const outcome of refused) {
      expect(outcome.error?.code).toBe(ErrorCodes.InvalidParams);
      expect(outcome.error?.data).toMatchObject({ allowedRoots: [cwd, extra] });
    }
    expect(outcomes[0]?.error?.message).toContain(join(outside, 'secret.txt'));
    expect(outcomes[0]?.error?.message).toContain(cwd);
    expect(outcomes[6]).toEqual({ result: {} });
    expect(readFileSync(join(extra, 'allowed.txt'), 'utf8')).toBe('yes');
    expect(() => readFileSync(join(outside, 'planted.txt'))).toThrow();
    expect(() => readFileSync(join(outside, 'through-link.txt'))).toThrow();
    expect(() => readFileSync(join(outside, 'dots.txt'))).toThrow();
  });
});

describe('the bridge runs terminal/* for the v1 agent as real processes', () => {
  it('streams output to the v2 client as a display terminal while it runs, then its exit status', {
    timeout: TIMEOUT,
  }, async () => {
    const { client, log } = await bridgeClient();
    const cwd = freshDir('terminal');
    const sessionId = await client.newSession(cwd);
    // Prints, then waits for the test to see that output on the v2 side before it ends with 3.
    const script = 'echo ready; echo err >&2; while [ ! -e go ]; do sleep 0.02; done; echo done; exit 3';
    const running = steps(client, sessionId, [
      create('sh', ['-c', script]),
      { showTerminal: true },
      onTerminal('terminal/wait_for_exit'),
      onTerminal('terminal/output'),
      onTerminal('terminal/release'),
      onTerminal('terminal/output'),
    ]);
    const chunk = (u: { sessionUpdate: string; data?: string }) =>
      u.sessionUpdate === 'terminal_output_chunk' && (u.data ?? '').includes('ready');
    await log.waitFor((u) => chunk(u as never));
    expect(log.updates.some((u) => u.sessionUpdate === 'terminal_update' && u.exitStatus != null)).toBe(
      false,
    );
    writeFileSync(join(cwd, 'go'), '');
    const outcomes = await running;

    const terminalId = resultOf<{ terminalId: string }>(outcomes[0]).terminalId;
    expect(outcomes[2]).toEqual({ result: { exitCode: 3, signal: null } });
    const output = resultOf<{ output: string; truncated: boolean; exitStatus: unknown }>(outcomes[3]);
    expect(output.output.split('\n').sort()).toEqual(['', 'done', 'err', 'ready']);
    expect(output).toMatchObject({ truncated: false, exitStatus: { exitCode: 3, signal: null } });
    expect(outcomes[4]).toEqual({ result: {} });
    expect(outcomes[5]?.error?.code).toBe(ErrorCodes.ResourceNotFound);

    const snapshot = client.store.snapshot(sessionId);
    const terminal = snapshot.terminals.find((t) => t.terminalId === terminalId);
    expect(terminal?.fields).toMatchObject({ cwd, command: `sh -c ${script}`, exitStatus: { exitCode: 3 } });
    expect(terminal?.output).toBe(output.output);
    // The agent's own tool call embeds the terminal by the ID the bridge gave it.
    expect(
      snapshot.toolCalls.find((call) => call.toolCallId === `run-${terminalId}`)?.fields.content,
    ).toEqual([{ type: 'terminal', terminalId }]);
  });

  it('streams output while the command runs; kill stops its whole process group', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await bridgeClient();
    const sessionId = await client.newSession(freshDir('kill'));
    const outcomes = await steps(client, sessionId, [
      create('sh', ['-c', 'echo "pids $$"; sleep 300 & echo "child $!"; echo ready; wait']),
      { until: 'ready' },
      onTerminal('terminal/kill'),
      onTerminal('terminal/wait_for_exit'),
      onTerminal('terminal/output'),
    ]);
    const terminalId = resultOf<{ terminalId: string }>(outcomes[0]).terminalId;
    expect(outcomes[2]).toEqual({ result: {} });
    expect(outcomes[3]).toEqual({ result: { exitCode: null, signal: 'SIGKILL' } });
    const text = resultOf<{ output: string }>(outcomes[4]).output;
    const shell = Number(/pids (\d+)/.exec(text)?.[1]);
    const sleeper = Number(/child (\d+)/.exec(text)?.[1]);
    expect(await gone(shell)).toBe(true);
    expect(await gone(sleeper)).toBe(true);
    const terminal = client.store.snapshot(sessionId).terminals.find((t) => t.terminalId === terminalId);
    expect(terminal?.output).toContain('ready');
    expect(terminal?.fields.exitStatus).toEqual({ exitCode: null, signal: 'SIGKILL' });
  });
});

describe('the ends of a bridge terminal', () => {
  it('release kills the command and its process group and forgets the terminal', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await bridgeClient();
    const sessionId = await client.newSession(freshDir('release'));
    const outcomes = await steps(client, sessionId, [
      create('sh', ['-c', 'echo "pid $$"; sleep 300 & echo "child $!"; wait']),
      { until: 'child' },
      onTerminal('terminal/output'),
      onTerminal('terminal/release'),
      onTerminal('terminal/wait_for_exit'),
    ]);
    const text = resultOf<{ output: string }>(outcomes[2]).output;
    expect(outcomes[3]).toEqual({ result: {} });
    expect(outcomes[4]?.error?.code).toBe(ErrorCodes.ResourceNotFound);
    expect(await gone(Number(/pid (\d+)/.exec(text)?.[1]))).toBe(true);
    expect(await gone(Number(/child (\d+)/.exec(text)?.[1]))).toBe(true);
  });

  it('closing the session on the v1 agent kills its terminals', { timeout: TIMEOUT }, async () => {
    const { client } = await bridgeClient({ env: { V1_FEATURES: '1' } });
    await client.login('token');
    const sessionId = await client.newSession(freshDir('close'));
    const outcomes = await steps(client, sessionId, [
      create('sh', ['-c', 'echo "pid $$"; sleep 300 & echo "child $!"; wait']),
      { until: 'child' },
      onTerminal('terminal/output'),
    ]);
    const text = resultOf<{ output: string }>(outcomes[2]).output;
    await client.closeSession(sessionId);
    expect(await gone(Number(/pid (\d+)/.exec(text)?.[1]))).toBe(true);
    expect(await gone(Number(/child (\d+)/.exec(text)?.[1]))).toBe(true);
  });

  it('the bridge process ending kills every terminal it runs', { timeout: TIMEOUT }, async () => {
    const { client, transport } = await bridgeClient();
    const sessionId = await client.newSession(freshDir('exit'));
    const outcomes = await steps(client, sessionId, [
      create('sh', ['-c', 'echo "pid $$"; sleep 300 & echo "child $!"; wait']),
      { until: 'child' },
      onTerminal('terminal/output'),
    ]);
    const text = resultOf<{ output: string }>(outcomes[2]).output;
    // The client walks away: the bridge sees its stdin end and shuts down.
    client.close();
    await transport.shutdown({ graceMs: 5000 });
    expect(await gone(Number(/pid (\d+)/.exec(text)?.[1]))).toBe(true);
    expect(await gone(Number(/child (\d+)/.exec(text)?.[1]))).toBe(true);
  });
});

describe('the bounds of the client services', () => {
  it('keeps the last outputByteLimit bytes of output, cut at a character boundary', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await bridgeClient();
    const sessionId = await client.newSession(freshDir('tail'));
    // 10 ASCII bytes, then ten 2-byte characters: the last 5 bytes start inside one of them.
    const script = "process.stdout.write('x'.repeat(10) + 'é'.repeat(10))";
    const outcomes = await steps(client, sessionId, [
      create(process.execPath, ['-e', script], { outputByteLimit: 5 }),
      onTerminal('terminal/wait_for_exit'),
      onTerminal('terminal/output'),
    ]);
    expect(outcomes[2]).toEqual({
      result: { output: 'éé', truncated: true, exitStatus: { exitCode: 0, signal: null } },
    });
    // The v2 client's display terminal shows everything that streamed.
    const terminalId = resultOf<{ terminalId: string }>(outcomes[0]).terminalId;
    const terminal = client.store.snapshot(sessionId).terminals.find((t) => t.terminalId === terminalId);
    expect(terminal?.output).toBe(`${'x'.repeat(10)}${'é'.repeat(10)}`);
  });

  it(`runs at most ${MAX_TERMINALS_PER_SESSION} terminals per session until one is released`, {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await bridgeClient();
    const sessionId = await client.newSession(freshDir('many'));
    const many = Array.from({ length: MAX_TERMINALS_PER_SESSION }, () => create('sleep', ['300']));
    const outcomes = await steps(client, sessionId, [
      ...many,
      create('sleep', ['300']),
      onTerminal('terminal/release'),
      create('true', []),
    ]);
    expect(outcomes.slice(0, MAX_TERMINALS_PER_SESSION).every((o) => o.result !== undefined)).toBe(true);
    const refused = outcomes[MAX_TERMINALS_PER_SESSION];
    expect(refused?.error?.code).toBe(ErrorCodes.InvalidRequest);
    expect(refused?.error?.message).toContain(`${MAX_TERMINALS_PER_SESSION} terminals`);
    expect(refused?.error?.data).toEqual({ limit: MAX_TERMINALS_PER_SESSION });
    expect(outcomes.at(-1)?.result).toMatchObject({ terminalId: expect.any(String) });
  });

  it(`reads and writes text files of up to ${MAX_TEXT_FILE_BYTES} bytes`, { timeout: TIMEOUT }, async () => {
    const { client } = await bridgeClient();
    const cwd = freshDir('big');
    writeFileSync(join(cwd, 'big.txt'), 'b'.repeat(MAX_TEXT_FILE_BYTES + 1));
    const sessionId = await client.newSession(cwd);
    const outcomes = await steps(client, sessionId, [
      read(join(cwd, 'big.txt')),
      write(join(cwd, 'huge.txt'), { $repeat: ['h', MAX_TEXT_FILE_BYTES + 1] }),
      write(join(cwd, 'fits.txt'), { $repeat: ['f', MAX_TEXT_FILE_BYTES] }),
    ]);
    expect(outcomes[0]?.error).toMatchObject({
      code: ErrorCodes.InvalidParams,
      data: { pointer: '/params/path', size: MAX_TEXT_FILE_BYTES + 1, limit: MAX_TEXT_FILE_BYTES },
    });
    expect(outcomes[1]?.error).toMatchObject({
      code: ErrorCodes.InvalidParams,
      data: { pointer: '/params/content', size: MAX_TEXT_FILE_BYTES + 1, limit: MAX_TEXT_FILE_BYTES },
    });
    expect(outcomes[2]).toEqual({ result: {} });
    expect(() => readFileSync(join(cwd, 'huge.txt'))).toThrow();
    expect(readFileSync(join(cwd, 'fits.txt'), 'utf8')).toHaveLength(MAX_TEXT_FILE_BYTES);
  });

  it('shows a write whose old and new text pass 4 MiB together as a diff without the texts', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await bridgeClient();
    const cwd = freshDir('big-diff');
    const half = 2 * 1024 * 1024 + 1;
    writeFileSync(join(cwd, 'wide.txt'), 'o'.repeat(half));
    const sessionId = await client.newSession(cwd);
    const outcomes = await steps(client, sessionId, [write(join(cwd, 'wide.txt'), { $repeat: ['n', half] })]);
    expect(outcomes).toEqual([{ result: {} }]);
    expect(readFileSync(join(cwd, 'wide.txt'), 'utf8')).toBe('n'.repeat(half));
    const edit = client.store.snapshot(sessionId).toolCalls.find((call) => call.fields.kind === 'edit');
    expect(edit?.fields.content).toEqual([
      { type: 'diff', changes: [{ operation: 'modify', path: join(cwd, 'wide.txt') }] },
    ]);
  });
});

describe('bridge --no-client-services', () => {
  it('tells the agent fs: false and terminal: false, and serves none of them', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await bridgeClient({ noServices: true });
    const cwd = freshDir('off');
    const sessionId = await client.newSession(cwd);
    const outcomes = await steps(client, sessionId, [
      { capabilities: true },
      write(join(cwd, 'no.txt'), 'no'),
      create('true', []),
    ]);
    expect(outcomes[0]?.result).toMatchObject({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
    });
    expect(outcomes[1]?.error?.code).toBe(ErrorCodes.MethodNotFound);
    expect(outcomes[2]?.error?.code).toBe(ErrorCodes.MethodNotFound);
    expect(() => readFileSync(join(cwd, 'no.txt'))).toThrow();
  });
});
