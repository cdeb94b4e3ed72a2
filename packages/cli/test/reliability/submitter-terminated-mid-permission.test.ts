// Regression test for #40 item 17 (reported twice before): the submitter's WebSocket is destroyed
// (`ws.terminate()`, no close frame) while the agent waits on its permission answer. The steps are
// the issue's, exactly, over a real `acp-kit agent --listen` child process and real WebSockets with
// raw JSON-RPC clients: client A creates the session, runs several long turns and stays connected
// without answering questions; watcher B (`capabilities: {}`) attaches with `session/resume` and
// `replayFrom: {type: "start"}` and stays; A3 (`capabilities: {}`) resumes, sends `/write
// secret.txt`, receives `session/request_permission` and is terminated. B must be asked, the turn
// must end, and B's next prompt must be answered.
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BIN, requireBuild } from '../harness.js';

beforeAll(requireBuild);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A JSON-RPC message as received: only the fields the test reads, loosely typed. */
interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: {
    update?: { sessionUpdate?: string; stopReason?: unknown };
    requestId?: unknown;
  };
  result?: { sessionId?: string };
  error?: unknown;
}

/** `acp-kit agent --listen 127.0.0.1:0 --chunk-delay 5`, its URL and the token from its token file. */
async function listen(): Promise<{ url: string; token: string }> {
  const child = spawn(process.execPath, [BIN, 'agent', '--listen', '127.0.0.1:0', '--chunk-delay', '5'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        process.kill(-child.pid!, 'SIGKILL');
      }),
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const url = /listening on (ws:\/\/\S+)\n/.exec(stderr)?.[1];
      const tokenFile = /token file: (\S+)/.exec(stderr)?.[1];
      if (url && tokenFile) resolve({ url, token: readFileSync(tokenFile, 'utf8').trim() });
    });
    child.once('exit', (code) => reject(new Error(`agent exited with ${code}: ${stderr}`)));
  });
}

/** A raw JSON-RPC client over one WebSocket: it answers nothing unless the test does. */
async function rawClient(url: string, token: string, name: string) {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
  cleanups.push(() => ws.terminate());
  const log: Message[] = [];
  const waiters = new Set<() => void>();
  const answers = new Map<number, (message: Message) => void>();
  let nextId = 0;
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as Message;
    log.push(message);
    if (message.method === undefined && typeof message.id === 'number') answers.get(message.id)?.(message);
    for (const waiter of [...waiters]) waiter();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const client = {
    ws,
    log,
    request(method: string, params: unknown): Promise<Message> {
      const id = ++nextId;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return new Promise((resolve) => answers.set(id, resolve));
    },
    answer(id: Message['id'], result: unknown): void {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, result }));
    },
    until(predicate: () => boolean): Promise<void> {
      return new Promise((resolve) => {
        if (predicate()) return resolve();
        const waiter = (): void => {
          if (!predicate()) return;
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
      });
    },
    /** The stop reasons of the turn-ending idles received, in order (replayed ones included). */
    stopReasons(): string[] {
      return log
        .filter((m) => m.method === 'session/update' && m.params?.update?.sessionUpdate === 'state_update')
        .map((m) => m.params?.update?.stopReason)
        .filter((reason): reason is string => typeof reason === 'string');
    },
    asked(): Message[] {
      return log.filter((m) => m.method === 'session/request_permission');
    },
  };
  const init = await client.request('initialize', {
    protocolVersion: 2,
    info: { name, version: '0.0.0' },
    capabilities: {},
  });
  expect(init.error).toBeUndefined();
  return client;
}

describe('the submitter leaving mid-permission over WebSocket (ws.terminate(), no close frame)', () => {
  it('asks watcher B although client A stays attached and silent; B answers, the turn ends and B’s next prompt is answered', async () => {
    const { url, token } = await listen();
    const a = await rawClient(url, token, 'A');
    const created = await a.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const sessionId = created.result?.sessionId as string;
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    for (let turn = 1; turn <= 3; turn += 1) {
      await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `${turn} ${long}` }] });
      await a.until(() => a.stopReasons().length === turn);
    }

    const b = await rawClient(url, token, 'B');
    const resumed = await b.request('session/resume', {
      sessionId,
      cwd: '/tmp',
      replayFrom: { type: 'start' },
    });
    expect(resumed.error).toBeUndefined();
    const replayedEnds = b.stopReasons().length;

    const a3 = await rawClient(url, token, 'A3');
    expect((await a3.request('session/resume', { sessionId, cwd: '/tmp' })).error).toBeUndefined();
    void a3.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/write secret.txt' }] });
    await a3.until(() => a3.asked().length === 1);
    a3.ws.terminate();

    await b.until(() => b.asked().length === 1);
    b.answer(b.asked()[0]!.id, { outcome: { outcome: 'selected', optionId: 'allow' } });
    await b.until(() => b.stopReasons().length === replayedEnds + 1);
    expect(b.stopReasons().slice(replayedEnds)).toEqual(['end_turn']);
    // A, asked too since it is attached, had the question withdrawn once B answered.
    const askedA = a.asked().map((m) => m.id);
    await a.until(() => a.stopReasons().length === 4);
    const withdrawnA = a.log.filter((m) => m.method === '$/cancel_request').map((m) => m.params?.requestId);
    expect(withdrawnA).toEqual(askedA);

    const next = await b.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    expect(next.error).toBeUndefined();
    await b.until(() => b.stopReasons().length === replayedEnds + 2);
    expect(b.stopReasons().slice(replayedEnds)).toEqual(['end_turn', 'end_turn']);
  }, 60_000);
});
