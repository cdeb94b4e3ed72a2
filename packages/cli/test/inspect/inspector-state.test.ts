/**
 * How the inspector page's one state object changes as the inspector's events arrive, without a
 * browser: the functions of state-changes.ts that the page's handlers call before they draw. The
 * Chromium tests beside this file check what is drawn.
 */
import { beforeAll, describe, expect, it } from 'vitest';

// By URL: the page's modules are typed for the DOM, which this (Node) project's types leave out.
const page = (file: string) => new URL(`../../src/inspector-app/src/${file}`, import.meta.url).href;

type Json = Record<string, unknown>;
interface Row {
  msg: unknown;
}
/** The slice of the page's state these tests read (see state.ts). */
interface State {
  traffic: { version: 1 | 2; add(dir: string, t: number, text: string): Row };
  store: {
    sessionIds(): string[];
    snapshot(id: string): { state: { connection: string }; configOptions: unknown; items: unknown[] };
  };
  sessions: string[];
  replayCheck: { sessionId: string; store: State['store'] } | undefined;
  asks: Map<string, { ask: { method: string; answer(result: unknown): void } }>;
  replaying: boolean;
  held: Map<string, unknown>;
  stderr: string;
  agent: { phase: string };
  initialized: { version: 1 | 2; capabilities: string } | undefined;
  initializing: Map<string, { version: 1 | 2; capabilities: string }>;
  v1Conversation: unknown;
}
interface Changes {
  foldIntoStore(state: State, dir: string, msg: Json | undefined): string[];
  takeAgentRequest(
    state: State,
    changed: () => void,
  ): (method: string, params: unknown, id: unknown) => Promise<unknown>;
  withdrawAsk(state: State, requestId: unknown): { key: string; method: string } | undefined;
  catchUp(state: State): unknown[];
  startRun(state: State, event: { run: number; description: string; target?: 'stdio' | 'remote' }): void;
  addStderr(state: State, text: string): void;
  disconnectAll(state: State, reason: string): void;
  noteInitialize(state: State, msg: Json | undefined): void;
  initializeAnswered(state: State, row: Row, result: Json): { version: 1 | 2; capabilities: string };
  sessionAnswered(state: State, sessionId: string, result: unknown): void;
  sessionDeleted(state: State, sessionId: string): void;
}

let changes: Changes;
let fresh: () => State;
let freshStore: () => State['store'];
beforeAll(async () => {
  changes = (await import(page('state-changes.ts'))) as Changes;
  const { createState, freshStore: store } = await import(page('state.ts'));
  fresh = () => createState(() => {}) as State;
  freshStore = () => store(() => {}) as State['store'];
});

const update = (sessionId: string, text: string): Json => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId,
    update: { sessionUpdate: 'agent_message', messageId: `m-${text}`, content: [{ type: 'text', text }] },
  },
});

describe("the inspector page's state, without a browser", () => {
  it("folds a v2 agent's session/update into the store, and a replay check's session into the check's own store", () => {
    const state = fresh();
    expect(changes.foldIntoStore(state, 'agent->client', update('s1', 'hello'))).toEqual([]);
    expect(state.store.sessionIds()).toEqual(['s1']);
    // The page's own requests are not updates.
    changes.foldIntoStore(state, 'client->agent', update('s2', 'mine'));
    expect(state.store.sessionIds()).toEqual(['s1']);
    state.replayCheck = { sessionId: 's3', store: freshStore() };
    changes.foldIntoStore(state, 'agent->client', update('s3', 'replayed'));
    expect(state.store.sessionIds()).toEqual(['s1']);
    expect(state.replayCheck.store.sessionIds()).toEqual(['s3']);
  });

  it("returns the store's reason for each update it refuses and still applies the others", () => {
    const state = fresh();
    // A session/update without params (the traffic table shows it, and the lint names it).
    const refused = changes.foldIntoStore(state, 'agent->client', {
      jsonrpc: '2.0',
      method: 'session/update',
    });
    expect(refused.length).toBe(1);
    expect(refused[0]).not.toBe('');
    expect(changes.foldIntoStore(state, 'agent->client', update('s1', 'fine'))).toEqual([]);
  });

  it('keeps a permission request waiting until the user answers it, and refuses what the page does not answer', async () => {
    const state = fresh();
    let changed = 0;
    const take = changes.takeAgentRequest(state, () => {
      changed += 1;
    });
    const answered = take('session/request_permission', { sessionId: 's1' }, 7);
    expect([...state.asks.keys()]).toEqual(['7']);
    expect(changed).toBe(1);
    state.asks.get('7')!.ask.answer({ outcome: { outcome: 'cancelled' } });
    await expect(answered).resolves.toEqual({ outcome: { outcome: 'cancelled' } });
    expect(state.asks.size).toBe(0);
    expect(changed).toBe(2);
    await expect(take('fs/read_text_file', {}, 8)).rejects.toMatchObject({ code: -32601 });
  });

  it('answers a withdrawn request -32800 and forgets it; an unknown id withdraws nothing', async () => {
    const state = fresh();
    const waiting = changes.takeAgentRequest(state, () => {})('elicitation/create', {}, 'e1');
    expect(changes.withdrawAsk(state, 'nope')).toBeUndefined();
    expect(changes.withdrawAsk(state, 'e1')).toEqual({ key: '"e1"', method: 'elicitation/create' });
    await expect(waiting).rejects.toMatchObject({ code: -32800 });
    expect(state.asks.size).toBe(0);
  });

  it("hands over the agent's requests held while catching up with the log, once", () => {
    const state = fresh();
    expect(state.replaying).toBe(true);
    state.held.set('1', { id: 1, method: 'session/request_permission' });
    expect(changes.catchUp(state)).toEqual([{ id: 1, method: 'session/request_permission' }]);
    expect(state.replaying).toBe(false);
    expect(changes.catchUp(state)).toEqual([]);
  });

  it('starts a run uninitialized with no stderr and a fresh v1 translator; an ended run disconnects and rejects', async () => {
    const state = fresh();
    const translator = state.v1Conversation;
    state.initialized = { version: 2, capabilities: '{}' };
    state.initializing.set('1', { version: 2, capabilities: '{}' });
    changes.addStderr(state, 'old');
    changes.startRun(state, { run: 2, description: 'agent' });
    expect(state.agent).toEqual({ phase: 'running', run: 2, description: 'agent', target: 'stdio' });
    expect(state.initialized).toBeUndefined();
    expect(state.initializing.size).toBe(0);
    expect(state.stderr).toBe('');
    expect(state.v1Conversation).not.toBe(translator);

    changes.foldIntoStore(state, 'agent->client', update('s1', 'hi'));
    changes.sessionAnswered(state, 's1', {});
    const asked = changes.takeAgentRequest(state, () => {})('session/request_permission', {}, 1);
    changes.disconnectAll(state, 'exited with code 1');
    expect(state.store.snapshot('s1').state.connection).toBe('disconnected');
    await expect(asked).rejects.toThrow('exited with code 1');
    expect(state.asks.size).toBe(0);
  });

  it("keeps the agent's last 16 KiB of stderr", () => {
    const state = fresh();
    changes.addStderr(state, 'a'.repeat(16_384));
    changes.addStderr(state, 'tail');
    expect(state.stderr.length).toBe(16_384);
    expect(state.stderr.endsWith('atail')).toBe(true);
  });

  it('knows which initialize is in force from the request its answer belongs to (v1 or v2, spacing aside)', () => {
    const state = fresh();
    const sent = state.traffic.add(
      'client->agent',
      0,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } },
      }),
    );
    changes.noteInitialize(state, sent.msg as Json);
    expect(state.initializing.get('3')).toEqual({ version: 1, capabilities: '{"fs":{"readTextFile":true}}' });
    const answer = state.traffic.add(
      'agent->client',
      1,
      JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} }),
    );
    expect(changes.initializeAnswered(state, answer, { protocolVersion: 1 })).toEqual({
      version: 1,
      capabilities: '{"fs":{"readTextFile":true}}',
    });
    expect(state.initializing.size).toBe(0);
    // An answer to a request the page never saw (an imported transcript's tail) counts as no capabilities.
    const stray = state.traffic.add(
      'agent->client',
      2,
      JSON.stringify({ jsonrpc: '2.0', id: 9, result: {} }),
    );
    expect(changes.initializeAnswered(state, stray, { protocolVersion: 2 })).toEqual({
      version: 2,
      capabilities: '{}',
    });
    // Not an initialize request: nothing noted.
    changes.noteInitialize(state, { jsonrpc: '2.0', id: 4, method: 'session/new', params: {} });
    expect(state.initializing.size).toBe(0);
  });

  it("lists a session once from its answer, takes a v2 answer's options, and forgets a deleted one", () => {
    const state = fresh();
    const options = [{ id: 'mode', name: 'Mode', type: 'select', currentValue: 'a', options: [] }];
    changes.sessionAnswered(state, 's1', { configOptions: options });
    changes.sessionAnswered(state, 's1', {});
    expect(state.sessions).toEqual(['s1']);
    expect(state.store.snapshot('s1').state.connection).toBe('connected');
    expect(state.store.snapshot('s1').configOptions).toEqual(options);
    changes.sessionDeleted(state, 's1');
    expect(state.sessions).toEqual([]);
    expect(state.store.sessionIds()).toEqual([]);
  });
});
