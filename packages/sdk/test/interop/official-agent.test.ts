/**
 * Our v2 `Client` drives an agent written with the official SDK's experimental v2 agent API, run as
 * a child process and reached through our `spawnTransport`.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, type ClientConnection, ConversationStore } from '../../src/client/index.js';
import { Connection, type Diagnostic } from '../../src/rpc/index.js';
import { type ChildProcessTransport, spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('./fixtures/official-agent.ts', import.meta.url));

let transport: ChildProcessTransport | undefined;

afterEach(async () => {
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

async function connect(
  store?: ConversationStore,
): Promise<{ client: Client; diagnostics: Diagnostic[]; stderr: () => string }> {
  let stderr = '';
  transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture], {
    name: 'official agent',
    onStderr: (text) => {
      stderr += text;
    },
  });
  const connection: ClientConnection = new Connection(transport);
  const diagnostics: Diagnostic[] = [];
  connection.onDiagnostic((diagnostic) => diagnostics.push(diagnostic));
  const client = new Client(connection, {
    info: { name: 'acp-kit-interop', version: '0.0.0' },
    ...(store ? { store } : {}),
  });
  return { client, diagnostics, stderr: () => stderr };
}

/** Resolves once the session has completed `turns` turns (idle with a stop reason after running). */
function completedTurns(store: ConversationStore, sessionId: string, turns: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      if (store.snapshot(sessionId).state.completedTurns < turns) return false;
      unsubscribe();
      resolve();
      return true;
    };
    const unsubscribe = store.subscribe(() => void check());
    check();
  });
}

describe('our Client against an agent built on the official v2 agent API', () => {
  it('reconciles the prompt by the official agent’s messageId and shows the streamed reply and idle', async () => {
    const { client, diagnostics, stderr } = await connect();
    const init = await client.initialize();
    expect(init).toMatchObject({ protocolVersion: 2, info: { name: 'official-fixture-agent' } });
    const sessionId = await client.newSession(process.cwd());
    expect(sessionId).toBe('sess_official');

    const done = completedTurns(client.store, sessionId, 1);
    const messageId = await client.prompt(sessionId, [{ type: 'text', text: 'hello official agent' }]);
    expect(messageId).toBe('user-1');
    await done;

    const snapshot = client.store.snapshot(sessionId);
    expect(snapshot.messages.map((m) => [m.kind, m.messageId, m.origin])).toEqual([
      ['user_message', 'user-1', 'agent'],
      ['agent_message', 'reply-1', 'agent'],
    ]);
    expect(snapshot.messages[0]).toMatchObject({
      localId: 'local-1',
      content: [{ type: 'text', text: 'hello official agent' }],
    });
    expect(snapshot.messages[1]!.content).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ' from' },
      { type: 'text', text: ' the official agent.' },
    ]);
    expect(snapshot.state).toMatchObject({ state: 'idle', stopReason: 'end_turn', completedTurns: 1 });
    expect(diagnostics).toEqual([]);
    expect(stderr()).toBe('');
  });

  it('shows a prompt once when the official agent reports the user message after the receipt', async () => {
    const { client, diagnostics } = await connect();
    const arrivals: string[] = [];
    client.connection.onMessage((direction, message) => {
      if (direction !== 'in') return;
      const m = message as { result?: { messageId?: string }; params?: { update?: Record<string, unknown> } };
      if (typeof m.result?.messageId === 'string') arrivals.push(`receipt ${m.result.messageId}`);
      const update = m.params?.update;
      if (update?.sessionUpdate === 'user_message') arrivals.push(`update ${String(update.messageId)}`);
    });
    await client.initialize();
    const sessionId = await client.newSession(process.cwd());

    const done = completedTurns(client.store, sessionId, 2);
    const first = await client.prompt(sessionId, [{ type: 'text', text: 'first' }]);
    const second = await client.prompt(sessionId, [{ type: 'text', text: 'late: second' }]);
    await done;

    expect([first, second]).toEqual(['user-1', 'user-2']);
    expect(arrivals).toEqual(['update user-1', 'receipt user-1', 'receipt user-2', 'update user-2']);
    const users = client.store.snapshot(sessionId).messages.filter((m) => m.kind === 'user_message');
    expect(users.map((m) => [m.messageId, m.origin, m.localId, m.content])).toEqual([
      ['user-1', 'agent', 'local-1', [{ type: 'text', text: 'first' }]],
      ['user-2', 'agent', 'local-2', [{ type: 'text', text: 'late: second' }]],
    ]);
    expect(diagnostics).toEqual([]);
  });

  // The official 2.4.0 v2 schema has `stopReason: 'error'` (with an optional `error` object); so does ours.
  it('ends the turn as idle when the official agent stops with stopReason error', async () => {
    const { client } = await connect();
    await client.initialize();
    const sessionId = await client.newSession(process.cwd());
    await client.prompt(sessionId, [{ type: 'text', text: 'fail: please' }]);
    await vi.waitFor(() => expect(client.store.snapshot(sessionId).state.state).toBe('idle'), {
      timeout: 2000,
    });
  });

  // The official agent sends `available_commands_update`: it passes validation and the store shows
  // it as the session's available commands (nothing is left over in `otherUpdates`).
  it('shows the official agent’s available_commands_update as the session’s commands', async () => {
    const store = new ConversationStore();
    const { client, diagnostics } = await connect(store);
    await client.initialize();
    const sessionId = await client.newSession(process.cwd());
    await client.prompt(sessionId, [{ type: 'text', text: 'fail: please' }]);
    await vi.waitFor(
      () =>
        expect(store.snapshot(sessionId).availableCommands).toEqual([
          { type: 'command', name: 'status', description: 'Show the session status' },
        ]),
      { timeout: 2000 },
    );
    expect(store.snapshot(sessionId).otherUpdates).toEqual([]);
    expect(diagnostics.filter((d) => d.message.includes('/update/sessionUpdate'))).toEqual([]);
  });
});
