/**
 * #30 item 6: our `Client` reads background work and agent-initiated updates from an agent written
 * with the official SDK's experimental v2 agent API (fixtures/official-agent-background.ts), run as
 * a child process: the store's background view follows each list, resolved to the terminal and
 * tool call it names; the turn ends at its own idle; the greeting and the note after the turn are
 * shown in report order and belong to no prompt.
 */
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Client,
  type ClientConnection,
  type ConversationDiagnostic,
  ConversationStore,
} from '../../src/client/index.js';
import { Connection, type Diagnostic } from '../../src/rpc/index.js';
import { type ChildProcessTransport, spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('./fixtures/official-agent-background.ts', import.meta.url));
const TIMEOUT = 60_000;
const text = (t: string): ContentBlock => ({ type: 'text', text: t });

let transport: ChildProcessTransport | undefined;
afterEach(async () => {
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

async function until(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('our Client against an official-SDK agent that reports background work', () => {
  it(
    'follows each background list resolved to its terminal and tool call, ends the turn at its own idle, and shows out-of-turn messages in order',
    async () => {
      transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture], {
        name: 'official background agent',
      });
      const connection: ClientConnection = new Connection(transport);
      const rpcDiagnostics: Diagnostic[] = [];
      connection.onDiagnostic((d) => rpcDiagnostics.push(d));
      const storeDiagnostics: ConversationDiagnostic[] = [];
      const store = new ConversationStore({ onDiagnostic: (d) => storeDiagnostics.push(d) });
      const client = new Client(connection, { info: { name: 'acp-kit-interop', version: '0.0.0' }, store });
      await client.initialize();
      const sessionId = await client.newSession('/work');
      await until(() => store.snapshot(sessionId).messages.length === 1);

      const lists: string[][] = [];
      store.subscribe((changes) => {
        if (!changes.some((c) => c.backgroundChanged)) return;
        const background = store.snapshot(sessionId).background ?? [];
        lists.push(background.map((b) => `${b.type}:${b.id}:${b.resolved ? 'resolved' : 'unresolved'}`));
      });
      const end = await client.promptToEnd(sessionId, [text('index it')]);
      expect(end).toMatchObject({ messageId: 'user-1', stopReason: 'end_turn' });
      await until(() => store.snapshot(sessionId).messages.length === 4);

      expect(lists).toEqual([
        [],
        ['terminal:term-1:resolved', 'tool_call:call-1:resolved'],
        ['terminal:term-1:resolved'],
        [],
      ]);
      const snapshot = store.snapshot(sessionId);
      expect(snapshot.background).toEqual([]);
      expect(snapshot.terminals[0]).toMatchObject({ terminalId: 'term-1', output: 'tick 1\ntick 2\n' });
      expect(snapshot.terminals[0]?.fields.exitStatus).toEqual({ exitCode: 0 });
      expect(snapshot.toolCalls[0]?.fields.status).toBe('completed');
      expect(snapshot.messages.map((m) => [m.key, m.localId === null ? 'no prompt' : 'this prompt'])).toEqual(
        [
          ['agent_message:hello', 'no prompt'],
          ['user_message:user-1', 'this prompt'],
          ['agent_message:reply-1', 'no prompt'],
          ['agent_message:note-1', 'no prompt'],
        ],
      );
      // The repeated idles after the turn ended nothing: one turn, its stop reason kept.
      expect(snapshot.state).toMatchObject({ state: 'idle', stopReason: 'end_turn', completedTurns: 1 });
      expect(storeDiagnostics).toEqual([]);
      expect(rpcDiagnostics).toEqual([]);
    },
    TIMEOUT,
  );
});
