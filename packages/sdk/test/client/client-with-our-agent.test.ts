/**
 * Our `Client` drives our own `Agent` (test/agent/fixtures/v2-agent.ts, a child process) through the
 * v2 methods beyond the prompt lifecycle: login, sessions with cursors, config options, close,
 * delete, a turn with every update kind, elicitation, tool call and terminal cancel, and replay.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientConnection, type ClientOptions } from '../../src/client/index.js';
import { Connection, type Diagnostic, RpcError } from '../../src/rpc/index.js';
import { type ChildProcessTransport, spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('../agent/fixtures/v2-agent.ts', import.meta.url));
const TIMEOUT = 60_000;
let transport: ChildProcessTransport | undefined;

afterEach(async () => {
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

async function start(
  args: string[],
  options: Partial<ClientOptions> = {},
): Promise<{ client: Client; diagnostics: Diagnostic[] }> {
  transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture, ...args], { name: 'v2-agent' });
  const connection: ClientConnection = new Connection(transport);
  const diagnostics: Diagnostic[] = [];
  connection.onDiagnostic((d) => diagnostics.push(d));
  const client = new Client(connection, { info: { name: 'client-test', version: '0.0.0' }, ...options });
  await client.initialize();
  return { client, diagnostics };
}

async function code(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return error instanceof RpcError ? error.code : undefined;
}

describe('our Client against our Agent over a child process', () => {
  it(
    'logs in, lists sessions page by page, sets options, closes and deletes',
    async () => {
      const { client, diagnostics } = await start(['--require-login', '--delete', '--page-size', '2']);
      expect(await code(client.newSession('/repo'))).toBe(-32000);
      expect(await code(client.login('token'))).toBe(-32000);
      await client.login('token', { meta: { password: 'open sesame' } });
      const created = await client.createSession({ cwd: '/repo', _meta: { from: 'test' } });
      const ids = [
        created.sessionId,
        await client.newSession('/repo'),
        await client.newSession('/elsewhere'),
      ];
      expect(client.store.snapshot(created.sessionId).configOptions?.map((o) => o.configId)).toEqual([
        'mode',
        'verbose',
      ]);
      expect(client.store.snapshot(created.sessionId).availableCommands?.map((c) => c.name)).toEqual([
        'tool',
      ]);

      const first = await client.listSessions();
      expect(first.sessions).toHaveLength(2);
      expect(first.nextCursor).toEqual(expect.any(String));
      const listed: string[] = [];
      for await (const session of client.sessions()) listed.push(session.sessionId);
      expect(listed.sort()).toEqual([...ids].sort());
      const inRepo: string[] = [];
      for await (const session of client.sessions({ cwd: '/repo' })) inRepo.push(session.sessionId);
      expect(inRepo.sort()).toEqual(ids.slice(0, 2).sort());

      const options = await client.setConfigOption(created.sessionId, 'verbose', true);
      expect(options.find((o) => o.configId === 'verbose')?.currentValue).toBe(true);
      expect(await code(client.setConfigOption(created.sessionId, 'mode', 'sing'))).toBe(-32602);

      await client.closeSession(ids[1]!);
      await client.deleteSession(ids[2]!);
      const left: string[] = [];
      for await (const session of client.sessions()) left.push(session.sessionId);
      expect(left.sort()).toEqual(ids.slice(0, 2).sort());
      expect(client.store.sessionIds()).not.toContain(ids[2]);
      await client.logout();
      expect(await code(client.newSession('/repo'))).toBe(-32000);
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'shows a turn with every update kind, and a replay changes nothing for messages and tool call fields',
    async () => {
      const { client, diagnostics } = await start([]);
      const sessionId = await client.newSession(process.cwd());
      const end = await client.promptToEnd(sessionId, [{ type: 'text', text: 'tool' }]);
      expect(end.stopReason).toBe('end_turn');
      const live = client.store.snapshot(sessionId);
      expect(live.toolCalls.map((t) => [t.toolCallId, t.fields.status])).toEqual([
        ['call_fixed', 'completed'],
      ]);
      expect(live.toolCalls[0]?.fields.content).toHaveLength(2);
      expect(live.terminals.map((t) => [t.output, t.fields.exitStatus])).toEqual([
        ['line 1\nline 2\n', { exitCode: 0 }],
      ]);
      expect(live.plans.map((p) => p.planId)).toEqual(['plan_1']);
      expect(live.contextUsage).toMatchObject({ used: 120, size: 1000 });
      expect(live.notices.map((n) => n.notice.title)).toEqual(['Tests passed']);
      expect(live.sessionInfo?.title).toBe('Ran the tests');
      expect(live.availableCommands?.map((c) => c.name)).toEqual(['tool', 'ask']);

      await client.resume(sessionId, { cwd: process.cwd(), replay: true });
      const replayed = client.store.snapshot(sessionId);
      expect(replayed.messages.map((m) => [m.key, m.content])).toEqual(
        live.messages.map((m) => [m.key, m.content]),
      );
      expect(replayed.toolCalls.map((t) => t.fields.status)).toEqual(['completed']);
      expect(replayed.plans.map((p) => p.update)).toEqual(live.plans.map((p) => p.update));
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'answers a form elicitation through its callback and cancels a tool call and a terminal',
    async () => {
      const { client, diagnostics } = await start([], {
        capabilities: { elicitation: { form: {} } },
        onElicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
      });
      const sessionId = await client.newSession(process.cwd());
      await client.promptToEnd(sessionId, [{ type: 'text', text: 'ask' }]);
      const asked = client.store.snapshot(sessionId).messages.at(-1);
      expect((asked?.content[0] as { text?: string } | undefined)?.text).toBe(
        'answer: {"action":"accept","content":{"name":"Ada"}}',
      );

      const submission = client.submit(sessionId, [{ type: 'text', text: 'tool-wait' }]);
      await new Promise<void>((resolve) => {
        const check = (): void => {
          const last = client.store.snapshot(sessionId).messages.at(-1);
          if ((last?.content[0] as { text?: string } | undefined)?.text?.startsWith('waiting ')) {
            unsubscribe();
            resolve();
          }
        };
        const unsubscribe = client.store.subscribe(check);
        check();
      });
      const { toolCalls, terminals } = client.store.snapshot(sessionId);
      const toolCallId = toolCalls.at(-1)!.toolCallId;
      const terminalId = terminals.at(-1)!.terminalId;
      await client.cancelToolCall(sessionId, toolCallId);
      await client.cancelTerminal(sessionId, terminalId);
      expect((await submission.turnEnd).stopReason).toBe('end_turn');
      const after = client.store.snapshot(sessionId);
      expect(after.toolCalls.at(-1)?.fields).toMatchObject({
        status: 'failed',
        title: 'Run tests (cancelled)',
      });
      expect(after.terminals.at(-1)?.fields.exitStatus).toEqual({ exitCode: null, signal: 'SIGTERM' });
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );
});
