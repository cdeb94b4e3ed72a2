/**
 * Our v2 `Client`, negotiated down to v1 in process (`negotiateClientVersion` with
 * `createV1WireCodec({ clientServices })`), offers a v1 agent the client methods v2 removed:
 * `fs/read_text_file`, `fs/write_text_file` and `terminal/*`. The agent is the official SDK's v1
 * fixture, a real child process, which calls them through its client (prompt `client <steps>`);
 * the files are real, each terminal a real child process. The app supplies an unsaved buffer,
 * decides about paths outside the session's directories, and bounds the terminals.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChildProcessTransport,
  Client,
  type ClientConnection,
  Connection,
  ErrorCodes,
  negotiateClientVersion,
  schemaValidator,
  spawnTransport,
} from '@acp-kit/sdk';
import type { SessionId } from '@acp-kit/schema';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createV1WireCodec, type V1ClientServicesOptions, v1WireCodec } from '../src/index.js';
import { fixture, textOf, UpdateLog } from './helpers.js';

const TIMEOUT = 60_000;
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-negotiated-services-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
function freshDir(name: string): string {
  const dir = join(scratch, `${++dirs}-${name}`);
  mkdirSync(dir);
  return dir;
}

/** Our client over stdio to the official v1 fixture agent, negotiated to v1 with these services. */
async function negotiatedClient(services?: V1ClientServicesOptions | true): Promise<{
  client: Client;
  transport: ChildProcessTransport;
  log: UpdateLog;
  versions: number[];
}> {
  const transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture('official-v1-agent.ts')], {
    name: 'official v1 agent',
    env: { ...process.env, V1_CLIENT_SERVICES: '1' },
    onStderr: (text) => process.stderr.write(text),
  });
  const versions: number[] = [];
  const codec = services === undefined ? v1WireCodec : createV1WireCodec({ clientServices: services });
  const connection: ClientConnection = new Connection(
    negotiateClientVersion(transport, { codecs: [codec], onNegotiated: (v) => versions.push(v) }),
    { validator: schemaValidator },
  );
  const log = new UpdateLog().tap(connection);
  const client = new Client(connection, { info: { name: 'negotiating-client', version: '1' } });
  cleanup.push(async () => {
    client.close();
    await transport.shutdown({ graceMs: 2000 });
  });
  await client.initialize();
  return { client, transport, log, versions };
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

function resultOf<T>(outcome: Outcome | undefined): T {
  if (outcome === undefined || !('result' in outcome))
    throw new Error(`no result: ${JSON.stringify(outcome)}`);
  return outcome.result as T;
}

const read = (path: string, more: Record<string, unknown> = {}): Step => ({
  request: 'fs/read_text_file',
  params: { path, ...more },
});
const write = (path: string, content: string): Step => ({
  request: 'fs/write_text_file',
  params: { path, content },
});
const create = (command: string, args: string[], more: Record<string, unknown> = {}): Step => ({
  request: 'terminal/create',
  params: { command, args, ...more },
});
const onTerminal = (request: string): Step => ({ request, params: { terminalId: '$term' } });

describe('a client negotiated to v1 offers the v1 agent fs/* and terminal/*', () => {
  it('advertises fs and terminal in its initialize only when asked to, and serves them only then', {
    timeout: TIMEOUT,
  }, async () => {
    const offered = await negotiatedClient(true);
    expect(offered.versions).toEqual([1]);
    const on = await offered.client.newSession(freshDir('offered'));
    const [caps] = await steps(offered.client, on, [{ capabilities: true }]);
    expect(caps?.result).toMatchObject({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });

    const plain = await negotiatedClient();
    const cwd = freshDir('plain');
    const off = await plain.client.newSession(cwd);
    const outcomes = await steps(plain.client, off, [
      { capabilities: true },
      write(join(cwd, 'no.txt'), 'no'),
      create('true', []),
    ]);
    // The official SDK reads an absent capability as false.
    const plainCaps = outcomes[0]?.result as { fs?: { readTextFile?: boolean }; terminal?: boolean };
    expect(plainCaps.fs?.readTextFile ?? false).toBe(false);
    expect(plainCaps.terminal ?? false).toBe(false);
    expect(outcomes[1]?.error?.code).toBe(ErrorCodes.MethodNotFound);
    expect(outcomes[2]?.error?.code).toBe(ErrorCodes.MethodNotFound);
    expect(() => readFileSync(join(cwd, 'no.txt'))).toThrow();
  });

  it('offers only the services chosen: reads without writes or terminals', { timeout: TIMEOUT }, async () => {
    const { client } = await negotiatedClient({ writeTextFile: false, terminal: false });
    const cwd = freshDir('read-only');
    writeFileSync(join(cwd, 'a.txt'), 'on disk');
    const sessionId = await client.newSession(cwd);
    const outcomes = await steps(client, sessionId, [
      { capabilities: true },
      read(join(cwd, 'a.txt')),
      write(join(cwd, 'a.txt'), 'changed'),
      create('true', []),
    ]);
    expect(outcomes[0]?.result).toMatchObject({
      fs: { readTextFile: true, writeTextFile: false },
      terminal: false,
    });
    expect(outcomes[1]).toEqual({ result: { content: 'on disk' } });
    expect(outcomes[2]?.error?.code).toBe(ErrorCodes.MethodNotFound);
    expect(outcomes[3]?.error?.code).toBe(ErrorCodes.MethodNotFound);
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('on disk');
  });

  it("reads the app's unsaved buffer instead of the file on disk, with line and limit applied", {
    timeout: TIMEOUT,
  }, async () => {
    const cwd = freshDir('buffer');
    const edited = join(cwd, 'edited.ts');
    const untouched = join(cwd, 'untouched.ts');
    const unsavedNew = join(cwd, 'new-unsaved.ts');
    writeFileSync(edited, 'saved line 1\nsaved line 2\n');
    writeFileSync(untouched, 'from disk\n');
    const buffers = new Map([
      [edited, 'unsaved line 1\nunsaved line 2\nunsaved line 3\n'],
      [unsavedNew, 'never saved\n'],
    ]);
    const asked: string[] = [];
    const { client } = await negotiatedClient({
      openBuffer: ({ realPath }) => {
        asked.push(realPath);
        return buffers.get(realPath);
      },
    });
    const sessionId = await client.newSession(cwd);
    const outcomes = await steps(client, sessionId, [
      read(edited),
      read(edited, { line: 2, limit: 1 }),
      read(untouched),
      read(unsavedNew),
      read(join(cwd, 'missing.ts')),
    ]);
    expect(outcomes[0]).toEqual({ result: { content: 'unsaved line 1\nunsaved line 2\nunsaved line 3\n' } });
    expect(outcomes[1]).toEqual({ result: { content: 'unsaved line 2\n' } });
    expect(outcomes[2]).toEqual({ result: { content: 'from disk\n' } });
    expect(outcomes[3]).toEqual({ result: { content: 'never saved\n' } });
    expect(outcomes[4]?.error?.code).toBe(ErrorCodes.ResourceNotFound);
    expect(asked).toContain(edited);
    expect(readFileSync(edited, 'utf8')).toBe('saved line 1\nsaved line 2\n');
  });

  it('refuses a path outside the session directories with the allowed roots, unless the app allows it', {
    timeout: TIMEOUT,
  }, async () => {
    const cwd = freshDir('confined');
    const extra = freshDir('extra');
    const outside = freshDir('outside');
    const shared = freshDir('shared');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    writeFileSync(join(shared, 'notes.txt'), 'shared notes');
    const asked: { path: string; method: string; roots: readonly string[] }[] = [];
    const { client } = await negotiatedClient({
      allowPath: ({ path, realPath, method, roots }) => {
        asked.push({ path, method, roots });
        return realPath.startsWith(`${shared}/`);
      },
    });
    const { sessionId } = await client.createSession({ cwd, mcpServers: [], additionalDirectories: [extra] });
    const outcomes = await steps(client, sessionId, [
      read(join(outside, 'secret.txt')),
      write(join(outside, 'planted.txt'), 'no'),
      create('true', [], { cwd: outside }),
      read(join(shared, 'notes.txt')),
      write(join(extra, 'allowed.txt'), 'yes'),
      read(`${shared}/../${outside.split('/').at(-1)}/secret.txt`),
    ]);
    for (const refused of [outcomes[0], outcomes[1], outcomes[2], outcomes[5]]) {
      expect(refused?.error?.code).toBe(ErrorCodes.InvalidParams);
      expect(refused?.error?.data).toMatchObject({ allowedRoots: [cwd, extra] });
    }
    expect(outcomes[0]?.error?.message).toContain(join(outside, 'secret.txt'));
    expect(outcomes[0]?.error?.data).toMatchObject({ pointer: '/params/path' });
    expect(outcomes[2]?.error?.data).toMatchObject({ pointer: '/params/cwd' });
    expect(outcomes[3]).toEqual({ result: { content: 'shared notes' } });
    expect(outcomes[4]).toEqual({ result: {} });
    expect(() => readFileSync(join(outside, 'planted.txt'))).toThrow();
    expect(asked.map((a) => a.method)).toEqual([
      'fs/read_text_file',
      'fs/write_text_file',
      'terminal/create',
      'fs/read_text_file',
    ]);
    expect(asked[0]?.roots).toEqual([cwd, extra]);
  });

  it('writes the file on disk and shows the client the write as a diff tool call', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await negotiatedClient(true);
    const cwd = freshDir('write');
    writeFileSync(join(cwd, 'a.txt'), 'old\n');
    const sessionId = await client.newSession(cwd);
    const outcomes = await steps(client, sessionId, [write(join(cwd, 'a.txt'), 'new\n')]);
    expect(outcomes[0]).toEqual({ result: {} });
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('new\n');
    const edit = client.store.snapshot(sessionId).toolCalls.find((call) => call.fields.kind === 'edit');
    expect(edit?.fields).toMatchObject({
      status: 'completed',
      content: [{ type: 'diff', changes: [{ operation: 'modify', oldText: 'old\n', newText: 'new\n' }] }],
    });
  });
});

describe('terminals a negotiated client runs for a v1 agent', () => {
  it('streams a command output to the client while it runs, then answers output and exit status', {
    timeout: TIMEOUT,
  }, async () => {
    const { client, log } = await negotiatedClient(true);
    const cwd = freshDir('terminal');
    const sessionId = await client.newSession(cwd);
    // Prints, then waits for the test to see that output in the client before it ends with 3.
    const script = 'echo ready; while [ ! -e go ]; do sleep 0.02; done; echo done; exit 3';
    const running = steps(client, sessionId, [
      create('sh', ['-c', script]),
      { showTerminal: true },
      onTerminal('terminal/wait_for_exit'),
      onTerminal('terminal/output'),
      onTerminal('terminal/release'),
    ]);
    await log.waitFor(
      (u) =>
        u.sessionUpdate === 'terminal_output_chunk' &&
        ((u as { data?: string }).data ?? '').includes('ready'),
    );
    expect(log.updates.some((u) => u.sessionUpdate === 'terminal_update' && u.exitStatus != null)).toBe(
      false,
    );
    writeFileSync(join(cwd, 'go'), '');
    const outcomes = await running;
    const terminalId = resultOf<{ terminalId: string }>(outcomes[0]).terminalId;
    expect(outcomes[2]).toEqual({ result: { exitCode: 3, signal: null } });
    expect(outcomes[3]).toEqual({
      result: { output: 'ready\ndone\n', truncated: false, exitStatus: { exitCode: 3, signal: null } },
    });
    expect(outcomes[4]).toEqual({ result: {} });
    const terminal = client.store.snapshot(sessionId).terminals.find((t) => t.terminalId === terminalId);
    expect(terminal?.output).toBe('ready\ndone\n');
    expect(terminal?.fields).toMatchObject({ cwd, exitStatus: { exitCode: 3 } });
  });

  it('keeps at most maxTerminalOutputBytes of output, whatever outputByteLimit the agent asks for', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await negotiatedClient({ maxTerminalOutputBytes: 100 });
    const sessionId = await client.newSession(freshDir('output-bound'));
    const outcomes = await steps(client, sessionId, [
      create('sh', ['-c', 'for i in $(seq 1 50); do echo "line $i"; done'], { outputByteLimit: 10_000 }),
      onTerminal('terminal/wait_for_exit'),
      onTerminal('terminal/output'),
      create('sh', ['-c', 'echo 0123456789abcdef'], { outputByteLimit: 8 }),
      onTerminal('terminal/wait_for_exit'),
      onTerminal('terminal/output'),
    ]);
    const capped = resultOf<{ output: string; truncated: boolean }>(outcomes[2]);
    expect(Buffer.byteLength(capped.output)).toBeLessThanOrEqual(100);
    expect(capped.truncated).toBe(true);
    expect(capped.output.endsWith('line 50\n')).toBe(true);
    expect(resultOf(outcomes[5])).toMatchObject({ output: '9abcdef\n', truncated: true });
  });

  it('runs at most maxTerminalsPerSession terminals in a session until one is released', {
    timeout: TIMEOUT,
  }, async () => {
    const { client } = await negotiatedClient({ maxTerminalsPerSession: 2 });
    const sessionId = await client.newSession(freshDir('terminal-bound'));
    const outcomes = await steps(client, sessionId, [
      create('sleep', ['30']),
      create('sleep', ['30']),
      create('sleep', ['30']),
      onTerminal('terminal/release'),
      create('true', []),
    ]);
    expect(outcomes[2]?.error).toMatchObject({ code: ErrorCodes.InvalidRequest, data: { limit: 2 } });
    expect(outcomes[2]?.error?.message).toContain('2 terminals');
    expect(outcomes[3]).toEqual({ result: {} });
    expect(resultOf<{ terminalId: string }>(outcomes[4]).terminalId).toMatch(/^term-/);
  });

  it('refuses a bound that is not a positive integer when the codec is created', () => {
    expect(() => createV1WireCodec({ clientServices: { maxTerminalsPerSession: 0 } })).toThrow(RangeError);
    expect(() => createV1WireCodec({ clientServices: { maxTerminalOutputBytes: 1.5 } })).toThrow(
      /maxTerminalOutputBytes must be a positive integer/,
    );
  });
});

describe('a client offering v1 services to an agent that answers v2', () => {
  it('stays on v2: the agent takes the initialize with the v1 fields and the prompt runs', {
    timeout: TIMEOUT,
  }, async () => {
    const transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture('v2-agent.ts')], {
      name: 'v2 agent',
      onStderr: (text) => process.stderr.write(text),
    });
    const versions: number[] = [];
    const sent: unknown[] = [];
    const negotiated = negotiateClientVersion(
      {
        reader: transport.reader,
        writer: {
          write: (json) => {
            sent.push(JSON.parse(json));
            return transport.writer.write(json);
          },
          close: () => transport.writer.close(),
        },
      },
      { codecs: [createV1WireCodec({ clientServices: true })], onNegotiated: (v) => versions.push(v) },
    );
    const connection: ClientConnection = new Connection(negotiated, { validator: schemaValidator });
    const client = new Client(connection, { info: { name: 'negotiating-client', version: '1' } });
    cleanup.push(async () => {
      client.close();
      await transport.shutdown({ graceMs: 2000 });
    });
    const init = await client.initialize();
    expect(init.protocolVersion).toBe(2);
    expect(versions).toEqual([2]);
    expect(sent[0]).toMatchObject({
      method: 'initialize',
      params: { clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } },
    });
    const sessionId = await client.newSession(freshDir('v2'));
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: 'hi' }]);
    expect(end.stopReason).toBe('end_turn');
  });
});
