/**
 * acp-factory (a third-party ACP client library from npm; it speaks ACP v1 through the official
 * SDK 0.18) forks a session of the real `acp-kit agent --unstable` child process with
 * `session/fork` from v1's unstable schema, which the agent's in-process v1 codec maps onto v2's.
 * The fork holds the source's history as the session-fork RFD says: a `session/load` of the fork
 * replays the source's messages under the same IDs, once each; what happens in the fork afterwards
 * stays out of the source. A stable-only `acp-kit agent` advertises no fork, and acp-factory
 * refuses to fork there.
 *
 * acp-factory's other way to fork, `forkWithFlush()` (also taken by `AgentHandle.forkSession()` for
 * a source that is processing a prompt, or with `forceFlush`), is made for its own fork of Claude
 * Code's adapter and steps outside ACP: it waits for the source to go idle, sends `session/cancel`
 * if it does not in time, then calls `_session/flush` — an extension method of that adapter,
 * advertised nowhere — and forks only if that succeeds. acp-kit answers the unknown extension
 * method -32601 with `data.method`, as ACP's extensibility rules ask, so `forkWithFlush()` rejects
 * with that error and makes no fork: the source keeps its history (each message once, under its
 * ID), and a busy source has had its turn cancelled by acp-factory first. Forking a busy session
 * within the protocol is plain `session/fork`, which acp-factory also offers as `Session.fork()`:
 * the fork holds the source's messages so far, under their IDs, once each, while the source's turn
 * goes on.
 */
import { AgentFactory, type AgentHandle } from 'acp-factory';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild } from '../harness.js';

beforeAll(requireBuild);

const handles: AgentHandle[] = [];
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
});

type Update = { sessionUpdate: string; messageId?: string | null; content?: { type: string; text?: string } };

/** Spawns `acp-kit agent` through acp-factory; `chunkDelay` paces the reply's chunks (ms). */
async function spawn(args: string[], chunkDelay = 0): Promise<AgentHandle> {
  const name = `acp-kit-${args.join('-') || 'stable'}-${chunkDelay}`;
  AgentFactory.register(name, {
    command: process.execPath,
    args: [BIN, 'agent', '--chunk-delay', String(chunkDelay), ...args],
    env: {},
  });
  const handle = await AgentFactory.spawn(name, { permissionMode: 'auto-approve' });
  handles.push(handle);
  return handle;
}

/**
 * Records the updates acp-factory's client handler receives for each session (its connection calls
 * the handler's `sessionUpdate` for every `session/update`).
 */
function record(handle: AgentHandle): Map<string, Update[]> {
  const seen = new Map<string, Update[]>();
  const handler = (handle as unknown as { clientHandler: { sessionUpdate(p: unknown): Promise<void> } })
    .clientHandler;
  const original = handler.sessionUpdate.bind(handler);
  handler.sessionUpdate = async (params) => {
    const { sessionId, update } = params as { sessionId: string; update: Update };
    seen.set(sessionId, [...(seen.get(sessionId) ?? []), update]);
    return original(params);
  };
  return seen;
}

/** The messages in a v1 replay: kind, messageId and text, one row per message (its chunks joined). */
function messages(updates: readonly Update[]): [string, string, string][] {
  const rows: [string, string, string][] = [];
  for (const u of updates) {
    if (u.sessionUpdate !== 'user_message_chunk' && u.sessionUpdate !== 'agent_message_chunk') continue;
    const id = u.messageId ?? '';
    const last = rows.at(-1);
    if (last !== undefined && last[0] === u.sessionUpdate && last[1] === id) last[2] += u.content?.text ?? '';
    else rows.push([u.sessionUpdate, id, u.content?.text ?? '']);
  }
  return rows;
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // acp-factory streams the turn's updates; the recorder keeps them.
  }
}

describe('acp-factory forks a session of acp-kit agent --unstable (v1 unstable session/fork)', () => {
  it('gets a fork whose load replays the source messages under their IDs, then goes on alone', async () => {
    const handle = await spawn(['--unstable']);
    expect(handle.capabilities.sessionCapabilities?.fork).toEqual({});
    const seen = record(handle);
    const source = await handle.createSession('/repo');
    await drain(source.prompt('hello there'));
    // A v1 client gets no echo of its own prompt live; the source's replay holds both messages.
    expect(messages(seen.get(source.id) ?? []).map(([kind]) => kind)).toEqual(['agent_message_chunk']);
    seen.delete(source.id);
    await handle.loadSession(source.id, '/repo');
    const history = messages(seen.get(source.id) ?? []);
    expect(history.map(([kind, , text]) => [kind, text])).toEqual([
      ['user_message_chunk', 'hello there'],
      ['agent_message_chunk', 'You said 2 words: "hello there".'],
    ]);
    expect(history.every(([, id]) => id !== '')).toBe(true);

    // The source is idle and known to acp-factory, so it forks directly (session/fork).
    const fork = await handle.forkSession(source.id, '/repo/branch');
    expect(fork.id).not.toBe(source.id);

    await handle.loadSession(fork.id, '/repo/branch');
    // The RFD: the fork starts with the source's retained history — the same messages under the
    // same IDs, each once.
    expect(messages(seen.get(fork.id) ?? [])).toEqual(history);

    await drain(fork.prompt('second direction'));
    seen.delete(fork.id);
    await handle.loadSession(fork.id, '/repo/branch');
    const forkNow = messages(seen.get(fork.id) ?? []);
    expect(forkNow.slice(0, 2)).toEqual(history);
    expect(forkNow.slice(2).map(([kind, , text]) => [kind, text])).toEqual([
      ['user_message_chunk', 'second direction'],
      ['agent_message_chunk', 'You said 2 words: "second direction".'],
    ]);

    // The source did not get the fork's turn: its replay is what it had.
    seen.delete(source.id);
    await handle.loadSession(source.id, '/repo');
    expect(messages(seen.get(source.id) ?? [])).toEqual(history);
  });

  it('finds no fork capability on a stable-only acp-kit agent, and refuses to fork there', async () => {
    const handle = await spawn([]);
    expect(handle.capabilities.sessionCapabilities?.fork).toBeUndefined();
    const source = await handle.createSession('/repo');
    await expect(handle.forkSession(source.id, '/repo')).rejects.toThrow(
      'Agent does not support forking sessions',
    );
  });
});

/** A prompt whose reply streams one word per chunk: 40 words, so 40+ chunks. */
const LONG = Array.from({ length: 40 }, (_, i) => `w${i + 1}`).join(' ');
const LONG_REPLY = `You said 40 words: "${LONG}".`;

describe('acp-factory forkWithFlush against acp-kit agent --unstable (its _session/flush is outside ACP)', () => {
  /** The sessions the agent lists (`session/list` through acp-factory's connection). */
  async function listed(handle: AgentHandle): Promise<string[]> {
    const connection = handle.getConnection() as unknown as {
      listSessions(params: object): Promise<{ sessions: { sessionId: string }[] }>;
    };
    return (await connection.listSessions({})).sessions.map((s) => s.sessionId);
  }

  /** The source's replay: a fresh `session/load`, its messages. */
  async function replayOf(handle: AgentHandle, seen: Map<string, Update[]>, sessionId: string) {
    seen.delete(sessionId);
    await handle.loadSession(sessionId, '/repo');
    return messages(seen.get(sessionId) ?? []);
  }

  it('on an idle source: asks for _session/flush, gets -32601 naming it, and forks nothing; the source keeps its messages once each', async () => {
    const handle = await spawn(['--unstable']);
    const seen = record(handle);
    const source = await handle.createSession('/repo');
    await drain(source.prompt('hello there'));
    const before = await replayOf(handle, seen, source.id);
    expect(before.map(([kind, , text]) => [kind, text])).toEqual([
      ['user_message_chunk', 'hello there'],
      ['agent_message_chunk', 'You said 2 words: "hello there".'],
    ]);

    // The Session object acp-factory knows is the one loadSession made last.
    const known = await handle.loadSession(source.id, '/repo');
    await expect(known.forkWithFlush({ idleTimeout: 1000, persistTimeout: 1000 })).rejects.toMatchObject({
      code: -32601,
      data: { method: '_session/flush' },
    });
    // AgentHandle.forkSession with forceFlush takes the same way, with the same answer.
    await expect(handle.forkSession(source.id, '/repo/branch', { forceFlush: true })).rejects.toMatchObject({
      code: -32601,
      data: { method: '_session/flush' },
    });
    expect(await listed(handle)).toEqual([source.id]);
    expect(await replayOf(handle, seen, source.id)).toEqual(before);
    // The protocol's fork (session/fork, taken for an idle source) works as before.
    const fork = await handle.forkSession(source.id, '/repo/branch');
    expect(await replayOf(handle, seen, fork.id)).toEqual(before);
  });

  it('on a busy source: acp-factory cancels the source’s turn, then gets -32601 for _session/flush and forks nothing', async () => {
    const handle = await spawn(['--unstable'], 100);
    const seen = record(handle);
    const source = await handle.createSession('/repo');
    const turn = drain(source.prompt(LONG));
    const chunks = () => (seen.get(source.id) ?? []).filter((u) => u.sessionUpdate === 'agent_message_chunk');
    while (chunks().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    // The source is processing: the high-level fork takes forkWithFlush.
    await expect(
      handle.forkSession(source.id, '/repo/branch', { idleTimeout: 300, persistTimeout: 300 }),
    ).rejects.toMatchObject({ code: -32601, data: { method: '_session/flush' } });
    await turn;
    expect(await listed(handle)).toEqual([source.id]);
    // Its session/cancel ended the turn early: the reply stopped part way, kept once.
    const history = await replayOf(handle, seen, source.id);
    expect(history.map(([kind]) => kind)).toEqual(['user_message_chunk', 'agent_message_chunk']);
    expect(history[0]![2]).toBe(LONG);
    const partial = history[1]![2];
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(LONG_REPLY.length);
    expect(LONG_REPLY.startsWith(partial)).toBe(true);
  });

  it('forks a busy source within the protocol with Session.fork(): the fork replays its messages so far under their IDs, once each, and the source’s turn goes on', async () => {
    const handle = await spawn(['--unstable'], 100);
    const seen = record(handle);
    const source = await handle.createSession('/repo');
    const turn = drain(source.prompt(LONG));
    const chunks = () => (seen.get(source.id) ?? []).filter((u) => u.sessionUpdate === 'agent_message_chunk');
    while (chunks().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.isProcessing).toBe(true);
    const fork = await source.fork();
    await handle.loadSession(fork.id, '/repo');
    const forked = messages(seen.get(fork.id) ?? []);
    await turn;
    const history = await replayOf(handle, seen, source.id);
    // The source's turn was not touched: its whole reply.
    expect(history.map(([kind, , text]) => [kind, text])).toEqual([
      ['user_message_chunk', LONG],
      ['agent_message_chunk', LONG_REPLY],
    ]);
    // The fork: the source's prompt and the reply as far as it had come, under the same IDs, once each.
    expect(forked.map(([kind, id]) => [kind, id])).toEqual(history.map(([kind, id]) => [kind, id]));
    expect(forked[0]![2]).toBe(LONG);
    // Forked mid-reply: part of it, not all (the reply has 40 chunks at 100 ms each to go).
    expect(forked[1]![2].length).toBeGreaterThan(0);
    expect(forked[1]![2].length).toBeLessThan(LONG_REPLY.length);
    expect(LONG_REPLY.startsWith(forked[1]![2])).toBe(true);
    // The fork goes on alone: its own turn, which the source does not get.
    await drain(fork.prompt('second direction'));
    const forkNow = await replayOf(handle, seen, fork.id);
    expect(forkNow.slice(0, 2)).toEqual(forked);
    expect(forkNow.slice(2).map(([kind, , text]) => [kind, text])).toEqual([
      ['user_message_chunk', 'second direction'],
      ['agent_message_chunk', 'You said 2 words: "second direction".'],
    ]);
    expect(await replayOf(handle, seen, source.id)).toEqual(history);
  });
});
