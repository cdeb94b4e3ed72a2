/**
 * #29, the other direction: our `Client` drives an agent written with the official SDK's
 * experimental v2 agent API (its unstable entry; fixtures/official-agent-unstable.ts), run as a
 * child process, through fork, titles, status, archive and a subagent — and its store holds what
 * the official agent reported, by ID, with no diagnostic.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, type ClientConnection, ConversationStore } from '../../src/client/index.js';
import { Connection, type Diagnostic } from '../../src/rpc/index.js';
import { type ChildProcessTransport, spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('./fixtures/official-agent-unstable.ts', import.meta.url));

let transport: ChildProcessTransport | undefined;
afterEach(async () => {
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

const text = (client: Client, sessionId: string) =>
  client.store
    .snapshot(sessionId)
    .messages.map((m) => [m.messageId, m.content.map((b) => ('text' in b ? b.text : '')).join('')]);

describe('our Client against an official-SDK v2 agent with the unstable session methods', () => {
  it('forks, titles, asks the status of, archives and unarchives sessions, and follows a subagent', async () => {
    transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture], {
      name: 'official unstable agent',
    });
    const connection: ClientConnection = new Connection(transport);
    const diagnostics: Diagnostic[] = [];
    connection.onDiagnostic((diagnostic) => diagnostics.push(diagnostic));
    const storeDiagnostics: unknown[] = [];
    const client = new Client(connection, {
      info: { name: 'acp-kit-interop', version: '0.0.0' },
      unstable: true,
      store: new ConversationStore({ unstable: true, onDiagnostic: (d) => storeDiagnostics.push(d) }),
    });
    const init = await client.initialize();
    expect(init.capabilities?.session).toMatchObject({ fork: {}, title: {}, status: {}, archive: {} });

    const { sessionId } = await client.createSession({ cwd: '/work' });
    await client.promptToEnd(sessionId, [{ type: 'text', text: 'hello' }]);
    const fork = await client.forkSession({ sessionId, cwd: '/work/branch' }, { replay: true });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(text(client, fork.sessionId)).toEqual(text(client, sessionId));
    expect(text(client, sessionId)).toEqual([
      ['user-1', 'hello'],
      ['reply-1', 're: hello'],
    ]);

    expect(await client.setTitle(fork.sessionId, '  Second try  ')).toBe('Second try');
    await vi.waitFor(() =>
      expect(client.store.snapshot(fork.sessionId).sessionInfo).toMatchObject({ title: 'Second try' }),
    );
    expect(await client.sessionStatus(sessionId)).toMatchObject({ status: 'open' });
    await client.archiveSession(sessionId);
    expect(await client.sessionStatus(sessionId)).toEqual({ status: 'saved' });
    await client.unarchiveSession(sessionId);
    expect((await client.sessionStatus(sessionId)).status).toBe('open');

    await client.promptToEnd(sessionId, [{ type: 'text', text: '/subagent lint' }]);
    const [child] = client.store.snapshot(sessionId).subagents;
    expect(child).toMatchObject({
      sessionId: 'sess_3',
      fields: {
        title: 'Worker: lint',
        description: 'one task',
        capabilities: { cancel: {} },
        state: { state: 'idle', stopReason: 'end_turn' },
      },
    });
    expect(text(client, child!.sessionId)).toEqual([['child-2', 'working on lint']]);
    expect(client.store.snapshot(child!.sessionId).state.state).toBe('idle');
    expect(diagnostics).toEqual([]);
    expect(storeDiagnostics).toEqual([]);
  });
});
