/**
 * Our `Client` drives an agent written with the official SDK's experimental v2 agent API
 * (fixtures/official-agent-v2-methods.ts), run as a child process, through every method beyond the
 * prompt lifecycle and every update kind of a scripted turn.
 */
import { fileURLToPath } from 'node:url';
import type { CreateElicitationRequest, RequestPermissionRequest } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientConnection, type ClientOptions } from '../../src/client/index.js';
import { Connection, type Diagnostic, RpcError } from '../../src/rpc/index.js';
import { type ChildProcessTransport, spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('./fixtures/official-agent-v2-methods.ts', import.meta.url));
const TIMEOUT = 60_000;

let transport: ChildProcessTransport | undefined;

afterEach(async () => {
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

async function connect(
  options: Partial<ClientOptions> = {},
): Promise<{ client: Client; diagnostics: Diagnostic[] }> {
  transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture], { name: 'official v2 agent' });
  const connection: ClientConnection = new Connection(transport);
  const diagnostics: Diagnostic[] = [];
  connection.onDiagnostic((diagnostic) => diagnostics.push(diagnostic));
  const client = new Client(connection, { info: { name: 'acp-kit-interop', version: '0.0.0' }, ...options });
  const init = await client.initialize();
  expect(init.authMethods).toEqual([{ type: 'agent', methodId: 'token', name: 'Token' }]);
  return { client, diagnostics };
}

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('our Client against the official v2 agent API: methods beyond the prompt lifecycle', () => {
  it(
    'logs in and out, creates a session with its config options and commands, and sets options',
    async () => {
      const { client, diagnostics } = await connect();
      expect((await rejection(client.newSession('/work/a'))).code).toBe(-32000);
      expect((await rejection(client.login('password'))).code).toBe(-32602);
      await client.login('token');
      const created = await client.createSession({ cwd: '/work/a', additionalDirectories: ['/work/shared'] });
      expect(created.sessionId).toBe('sess_new1');
      const before = client.store.snapshot(created.sessionId);
      expect(before.configOptions?.map((o) => [o.configId, o.currentValue])).toEqual([
        ['mode', 'ask'],
        ['fast', false],
      ]);
      expect(before.availableCommands).toEqual([
        { type: 'command', name: 'wait', description: 'Wait until cancelled' },
      ]);

      const afterMode = await client.setConfigOption(created.sessionId, 'mode', 'code');
      expect(afterMode.map((o) => o.currentValue)).toEqual(['code', false]);
      await client.setConfigOption(created.sessionId, 'fast', true);
      expect(client.store.snapshot(created.sessionId).configOptions?.map((o) => o.currentValue)).toEqual([
        'code',
        true,
      ]);
      expect((await rejection(client.setConfigOption(created.sessionId, 'volume', 'loud'))).code).toBe(
        -32602,
      );

      await client.logout();
      expect((await rejection(client.newSession('/work/a'))).code).toBe(-32000);
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'pages through session/list with cursors, filters by cwd, cancels a slow list and deletes a session',
    async () => {
      const { client, diagnostics } = await connect();
      const first = await client.listSessions();
      expect(first.sessions.map((s) => s.sessionId)).toEqual(['sess_a1', 'sess_b1']);
      expect(first.nextCursor).toBe('after:2');
      const second = await client.listSessions({ cursor: first.nextCursor });
      expect(second.sessions.map((s) => s.sessionId)).toEqual(['sess_a2', 'sess_a3']);

      const all: string[] = [];
      for await (const session of client.sessions()) all.push(`${session.sessionId}:${session.title}`);
      expect(all).toEqual([
        'sess_a1:First',
        'sess_b1:Second',
        'sess_a2:Third',
        'sess_a3:Fourth',
        'sess_b2:Fifth',
      ]);
      const inA: string[] = [];
      for await (const session of client.sessions({ cwd: '/work/a' })) inA.push(session.sessionId);
      expect(inA).toEqual(['sess_a1', 'sess_a2', 'sess_a3']);

      // $/cancel_request: the agent abandons the list and answers -32800; the connection goes on.
      const controller = new AbortController();
      const slow = client.listSessions({ cwd: '/slow' }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      expect((await rejection(slow)).code).toBe(-32800);

      await client.closeSession('sess_b1');
      await client.deleteSession('sess_b1');
      const left: string[] = [];
      for await (const session of client.sessions()) left.push(session.sessionId);
      expect(left).toEqual(['sess_a1', 'sess_a2', 'sess_a3', 'sess_b2']);
      expect((await rejection(client.deleteSession('sess_b1'))).code).toBe(-32002);
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'runs a whole turn: every update kind in the snapshot, elicitations and the permission answered through callbacks',
    async () => {
      const forms: CreateElicitationRequest[] = [];
      const permissions: RequestPermissionRequest[] = [];
      const completed: string[] = [];
      const { client, diagnostics } = await connect({
        capabilities: { elicitation: { form: {}, url: {} } },
        onElicitation: (request) => {
          forms.push(request);
          return request.mode === 'form'
            ? { action: 'accept', content: { branch: 'main' } }
            : { action: 'decline' };
        },
        onPermission: async (request) => {
          permissions.push(request);
          return { outcome: { outcome: 'selected', optionId: 'no' } };
        },
        onElicitationComplete: (notification) => completed.push(notification.elicitationId),
      });
      await client.login('token');
      const sessionId = await client.newSession('/work/a');
      const submission = client.submit(sessionId, [{ type: 'text', text: 'fix the bug' }]);
      expect(await submission.messageId).toBe('user-1');
      const end = await submission.turnEnd;
      expect(end).toEqual({ messageId: 'user-1', stopReason: 'end_turn', usage: null, error: null });

      const snapshot = client.store.snapshot(sessionId);
      expect(snapshot.toolCalls).toHaveLength(1);
      expect(snapshot.toolCalls[0]?.fields).toMatchObject({
        toolCallId: 'call-1',
        kind: 'execute',
        status: 'completed',
        content: [
          { type: 'content', content: { type: 'text', text: 'step 1' } },
          { type: 'terminal', terminalId: 'term-1' },
        ],
      });
      // `title: null` in the last update cleared the title.
      expect(snapshot.toolCalls[0]?.fields.title).toBeUndefined();
      expect(snapshot.terminals).toEqual([
        {
          terminalId: 'term-1',
          fields: {
            command: 'npm test',
            cwd: '/work/a',
            capabilities: { cancel: {} },
            exitStatus: { exitCode: 0 },
          },
          output: '> test\nok 1\nok 2\n',
          position: expect.any(Number),
        },
      ]);
      expect(snapshot.plans.map((p) => p.planId)).toEqual(['plan-1']);
      expect(snapshot.sessionInfo).toEqual({ title: 'Turn 1', updatedAt: '2026-02-01T00:00:00Z' });
      expect(snapshot.contextUsage).toMatchObject({ used: 1200, size: 200000 });
      expect(snapshot.notices.map((n) => n.notice.title)).toEqual(['Close to the rate limit']);
      expect(snapshot.otherUpdates).toEqual([]);

      expect(forms.map((f) => f.mode)).toEqual(['form', 'url']);
      expect(permissions.map((p) => p.title)).toEqual(['Push to the remote?']);
      expect(completed).toEqual(['elic-1']);
      const reply = snapshot.messages.find((m) => m.key === 'agent_message:reply-1');
      expect(JSON.parse((reply?.content[0] as { text: string } | undefined)?.text ?? '')).toEqual({
        form: { action: 'accept', content: { branch: 'main' } },
        permission: { outcome: { outcome: 'selected', optionId: 'no' } },
        url: { action: 'decline' },
      });
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );

  it.each([
    ['tool_call/cancel', (client: Client, sessionId: string) => client.cancelToolCall(sessionId, 'call-1')],
    ['terminal/cancel', (client: Client, sessionId: string) => client.cancelTerminal(sessionId, 'term-1')],
  ])(
    '%s stops the work it names and the turn ends cancelled',
    async (_method, cancel) => {
      const { client, diagnostics } = await connect();
      await client.login('token');
      const sessionId = await client.newSession('/work/a');
      const submission = client.submit(sessionId, [{ type: 'text', text: '/wait' }]);
      await submission.messageId;
      // Cancel once the terminal's output is shown (the work is then waiting).
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (client.store.snapshot(sessionId).terminals[0]?.output === '> test\nok 1\nok 2\n') {
            unsubscribe();
            resolve();
          }
        };
        const unsubscribe = client.store.subscribe(check);
        check();
      });
      await cancel(client, sessionId);
      expect(await submission.turnEnd).toMatchObject({ stopReason: 'cancelled' });
      const snapshot = client.store.snapshot(sessionId);
      expect(snapshot.toolCalls[0]?.fields.status).toBe('cancelled');
      expect(snapshot.terminals[0]?.fields.exitStatus).toEqual({ signal: 'SIGTERM' });
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );
});
