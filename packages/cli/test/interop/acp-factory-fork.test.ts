/**
 * acp-factory (a third-party ACP client library from npm; it speaks ACP v1 through the official
 * SDK 0.18) forks a session of the real `acp-kit agent --unstable` child process with
 * `session/fork` from v1's unstable schema, which the agent's in-process v1 codec maps onto v2's.
 * The fork holds the source's history as the session-fork RFD says: a `session/load` of the fork
 * replays the source's messages under the same IDs, once each; what happens in the fork afterwards
 * stays out of the source. A stable-only `acp-kit agent` advertises no fork, and acp-factory
 * refuses to fork there.
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

async function spawn(args: string[]): Promise<AgentHandle> {
  const name = `acp-kit-${args.join('-') || 'stable'}`;
  AgentFactory.register(name, {
    command: process.execPath,
    args: [BIN, 'agent', '--chunk-delay', '0', ...args],
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
