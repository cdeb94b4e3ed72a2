/**
 * Memory of a real `acp-kit agent` process, read from /proc (Linux): peak RSS while it receives a
 * line twice its limit, RSS while a client stops reading its output, and RSS per idle session.
 */
import { readFileSync } from 'node:fs';
import { replyTo } from '../src/agent/reply-model.js';
import { PassThrough } from 'node:stream';
import type { SessionNotification } from '@acp-kit/schema';
import { type AgentConnection, Connection, streamTransport } from '@acp-kit/sdk';
import { createReferenceAgent } from '../src/agent/reference-agent.js';
import { agentProcess, clientOver, isState, type TestClient, textOf } from '../test/harness.js';

const MiB = 1024 * 1024;
const text = (t: string) => [{ type: 'text' as const, text: t }] as [{ type: 'text'; text: string }];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A field of /proc/<pid>/status in bytes (VmRSS: resident now, VmHWM: peak resident). */
export function procBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Counts incoming updates as they arrive (the harness's `until` rescans the whole log each time). */
function counter(t: TestClient): { chunks: number; idles: number; wait(done: () => boolean): Promise<void> } {
  const waiters = new Set<() => void>();
  const state = {
    chunks: 0,
    idles: 0,
    wait: (done: () => boolean) =>
      new Promise<void>((resolve) => {
        if (done()) return resolve();
        const check = (): void => {
          if (!done()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      }),
  };
  t.connection.onMessage((direction, message) => {
    if (direction !== 'in') return;
    const update = (message as { params?: { update?: SessionNotification['update'] } }).params?.update;
    if (!update) return;
    if (update.sessionUpdate === 'agent_message_chunk') state.chunks++;
    // Turn ends only: `idle` with a stop reason (a resume's state snapshot carries none).
    else if (isState(update, 'idle') && 'stopReason' in update) state.idles++;
    for (const waiter of [...waiters]) waiter();
  });
  return state;
}

/** What {@link oversizedThroughStdio} observed. */
export interface StdioOversizedReport {
  lineBytes: number;
  /** Peak RSS growth of the agent over its level before the line. */
  peakGrowthBytes: number;
  error: { code: number; message: string } | undefined;
  answeredAfter: boolean;
}

/** Sends the agent (8 MiB default limit) one line of `factor × 8 MiB` over its stdin. */
export async function oversizedThroughStdio(factor = 2): Promise<StdioOversizedReport> {
  const transport = agentProcess();
  const t = await clientOver(transport);
  try {
    const pid = transport.child.pid!;
    const before = procBytes(pid, 'VmHWM');
    const lineBytes = factor * 8 * MiB;
    const stdin = transport.child.stdin!;
    const write = async (chunk: Buffer | string): Promise<void> => {
      if (!stdin.write(chunk)) await new Promise((resolve) => stdin.once('drain', resolve));
    };
    // Raw bytes on the agent's stdin, interleaved with nothing else: one oversized frame.
    await write('{"jsonrpc":"2.0","id":"big","method":"session/new","params":{"cwd":"');
    for (let sent = 0; sent < lineBytes; sent += 256 * 1024) await write(Buffer.alloc(256 * 1024, 0x61));
    await write('"}}\n');
    // The id is in the kept start of the line, so the error names the request.
    await t.until((incoming) => incoming.some((m) => m.id === 'big'));
    const error = t.incoming.find((m) => m.id === 'big')?.error as
      | { code: number; message: string }
      | undefined;
    const answeredAfter = (await t.client.newSession('/after').catch(() => undefined)) !== undefined;
    const peakGrowthBytes = procBytes(pid, 'VmHWM') - before;
    return { lineBytes, peakGrowthBytes, error, answeredAfter };
  } finally {
    await transport.shutdown({ graceMs: 1000 });
  }
}

/** What {@link slowClient} observed. */
export interface SlowClientReport {
  chunks: number;
  /** Peak RSS growth of the agent while the client was not reading. */
  stalledGrowthBytes: number;
  /** Whether the client got the whole reply, in order, once it read again. */
  nothingLost: boolean;
}

/**
 * The client stops reading the agent's stdout after the first chunk of a long reply, for `stallMs`,
 * while the agent (no chunk delay) keeps producing; then it reads again.
 */
export async function slowClient(wordCount: number, stallMs: number): Promise<SlowClientReport> {
  const transport = agentProcess(['--chunk-delay', '0']);
  const t = await clientOver(transport);
  try {
    const pid = transport.child.pid!;
    const sessionId = await t.client.newSession('/work');
    const prompt = Array.from({ length: wordCount }, (_, i) => `word${i}`).join(' ');
    const expected = replyTo(prompt);
    const base = procBytes(pid, 'VmRSS');
    const seen = counter(t);
    void t.client.prompt(sessionId, text(prompt));
    await seen.wait(() => seen.chunks > 0);
    transport.child.stdout!.pause();
    let peak = 0;
    for (let waited = 0; waited < stallMs; waited += 50) {
      peak = Math.max(peak, procBytes(pid, 'VmRSS') - base);
      await sleep(50);
    }
    transport.child.stdout!.resume();
    await seen.wait(() => seen.idles > 0);
    const reply = t.client.store.snapshot(sessionId).messages.find((m) => m.kind === 'agent_message');
    return {
      chunks: expected.pieces.length,
      stalledGrowthBytes: peak,
      nothingLost: reply !== undefined && textOf(reply.content) === expected.pieces.join(''),
    };
  } finally {
    await transport.shutdown({ graceMs: 1000 });
  }
}

/** What {@link manySessions} observed. */
export interface SessionsReport {
  sessions: number;
  /** Sessions whose turn completed (idle / end_turn) and whose reply arrived whole. */
  completed: number;
  /** RSS growth of the agent divided by the number of sessions (no forced GC in the child). */
  bytesPerIdleSession: number;
}

/** Opens `count` sessions on one agent process, one short turn each, all at once. */
export async function manySessions(count: number): Promise<SessionsReport> {
  const transport = agentProcess(['--chunk-delay', '0']);
  const t = await clientOver(transport);
  try {
    const pid = transport.child.pid!;
    await sleep(200);
    const base = procBytes(pid, 'VmRSS');
    const seen = counter(t);
    const ids = await Promise.all(Array.from({ length: count }, (_, i) => t.client.newSession(`/work/${i}`)));
    await Promise.all(ids.map((id, i) => t.client.prompt(id, text(`hello session ${i}`))));
    await seen.wait(() => seen.idles >= count);
    let completed = 0;
    for (const [i, id] of ids.entries()) {
      const snapshot = t.client.store.snapshot(id);
      const reply = snapshot.messages.find((m) => m.kind === 'agent_message');
      const whole = reply && textOf(reply.content) === replyTo(`hello session ${i}`).pieces.join('');
      if (whole && snapshot.state.state === 'idle' && snapshot.state.stopReason === 'end_turn') completed++;
    }
    await sleep(500);
    const grown = procBytes(pid, 'VmRSS') - base;
    return { sessions: count, completed, bytesPerIdleSession: Math.max(0, grown) / count };
  } finally {
    await transport.shutdown({ graceMs: 1000 });
  }
}

/**
 * Heap per idle session of the reference agent measured in this process (run with --expose-gc):
 * `count` sessions opened over a raw connection that keeps nothing, one short turn each.
 */
export async function heapPerIdleSession(count: number): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const agent = createReferenceAgent({ chunkDelayMs: 0 });
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  agent.serve(new Connection(streamTransport(toAgent, fromAgent)) as AgentConnection);
  const replies = new Map<number, (result: unknown) => void>();
  let idles = 0;
  let buffered = '';
  fromAgent.setEncoding('utf8');
  fromAgent.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const message = JSON.parse(line) as {
        id?: number;
        result?: unknown;
        params?: { update?: { state?: string; stopReason?: string } };
      };
      if (typeof message.id === 'number') replies.get(message.id)?.(message.result);
      else if (message.params?.update?.state === 'idle' && message.params.update.stopReason) idles++;
    }
  });
  let nextId = 1;
  const call = (method: string, params: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      const id = nextId++;
      replies.set(id, (result) => {
        replies.delete(id);
        resolve(result);
      });
      toAgent.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await call('initialize', { protocolVersion: 2, info: { name: 'heap', version: '0' } });
  const openIdle = async (): Promise<void> => {
    const before = idles;
    const ids = (await Promise.all(
      Array.from({ length: count }, () => call('session/new', { cwd: '/work', mcpServers: [] })),
    )) as { sessionId: string }[];
    await Promise.all(
      ids.map(({ sessionId }, i) => call('session/prompt', { sessionId, prompt: text(`hello ${i}`) })),
    );
    while (idles < before + count) await sleep(10);
    await sleep(50);
  };
  const settledHeap = (): number => {
    gc?.();
    gc?.();
    return process.memoryUsage().heapUsed;
  };
  // The first batch warms every code path up; only the second batch's growth is counted.
  await openIdle();
  const base = settledHeap();
  await openIdle();
  const perSession = (settledHeap() - base) / count;
  toAgent.end();
  return perSession;
}
