/**
 * Replaying a session into a client that already holds it changes nothing: our `Client` drives our
 * `Agent` (test/agent/fixtures/v2-agent.ts, a child process), runs a turn with a tool call whose
 * content and a terminal whose output are streamed as chunks, then resumes with replay twice.
 * The agent's stderr (it explains every -32603 it answers: the request, the stack of what threw)
 * is printed when the test fails.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection, type Diagnostic } from '../../src/rpc/index.js';
import { type ChildProcessTransport, spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('../agent/fixtures/v2-agent.ts', import.meta.url));
const TIMEOUT = 60_000;
let transport: ChildProcessTransport | undefined;

afterEach(async () => {
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

describe('replay into a client that already holds the session', () => {
  it(
    'replaying twice gives the same tool call content and terminal output as the live turn and one replay',
    async ({ onTestFailed }) => {
      let stderr = '';
      transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture], {
        name: 'v2-agent',
        onStderr: (text) => {
          stderr += text;
        },
      });
      onTestFailed(() => {
        console.error(`v2-agent stderr:\n${stderr || '(nothing)'}`);
      });
      const connection: ClientConnection = new Connection(transport);
      const diagnostics: Diagnostic[] = [];
      connection.onDiagnostic((d) => diagnostics.push(d));
      const client = new Client(connection, { info: { name: 'replay-test', version: '0.0.0' } });
      await client.initialize();
      const sessionId = await client.newSession(process.cwd());
      const end = await client.promptToEnd(sessionId, [{ type: 'text', text: 'tool' }]);
      expect(end.stopReason).toBe('end_turn');

      const entities = () => {
        const { toolCalls, terminals, messages } = client.store.snapshot(sessionId);
        return {
          toolCalls: toolCalls.map((t) => [t.toolCallId, t.fields]),
          terminals: terminals.map((t) => [t.terminalId, t.output, t.fields]),
          messages: messages.map((m) => [m.key, m.content]),
        };
      };
      const live = entities();
      const [toolCall] = client.store.snapshot(sessionId).toolCalls;
      expect(live.toolCalls).toHaveLength(1);
      expect(toolCall?.fields.content).toHaveLength(2);
      expect(live.terminals.map(([, output]) => output)).toEqual(['line 1\nline 2\n']);

      await client.resume(sessionId, { cwd: process.cwd(), replay: true });
      const once = entities();
      await client.resume(sessionId, { cwd: process.cwd(), replay: true });
      const twice = entities();

      expect(once).toEqual(live);
      expect(twice).toEqual(once);
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );
});
