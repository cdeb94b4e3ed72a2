// Regression tests for #40 item 14: `session/cancel` ends a turn that waits on a client, whatever
// that client does. The client here never answers what it is asked and ignores the agent's
// `$/cancel_request` (a hung client): the turn still ends `cancelled`, and the session serves its
// next prompt.
import type { SessionNotification } from '@acp-kit/schema';
import { type ClientConnection, Connection, schemaValidator } from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess, type Incoming, requireBuild } from '../harness.js';

beforeAll(requireBuild);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A raw client over a fresh `acp-kit agent --unstable` whose handlers of the agent's questions never settle. */
async function hungClient() {
  const transport = agentProcess(['--unstable', '--chunk-delay', '0']);
  cleanups.push(() => transport.shutdown({ graceMs: 2_000 }));
  const connection: ClientConnection = new Connection(transport, { validator: schemaValidator });
  const incoming: Incoming[] = [];
  const waiters = new Set<() => void>();
  connection.onMessage((direction, message) => {
    if (direction !== 'in') return;
    incoming.push(message as Incoming);
    for (const waiter of [...waiters]) waiter();
  });
  const until = (predicate: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      if (predicate()) return resolve();
      const waiter = (): void => {
        if (!predicate()) return;
        waiters.delete(waiter);
        resolve();
      };
      waiters.add(waiter);
    });
  const hang = () => new Promise<never>(() => undefined);
  connection.onRequest('session/request_permission', hang);
  connection.onRequest('elicitation/create', hang);
  connection.onRequest('mcp/message', hang);
  connection.listen();
  await connection.sendRequest('initialize', {
    protocolVersion: 2,
    info: { name: 'hung-client', version: '0.0.0' },
    capabilities: { elicitation: { form: {} } },
  });
  const { sessionId } = await connection.sendRequest('session/new', {
    cwd: '/work',
    mcpServers: [{ type: 'acp', name: 'project-tools', serverId: 'tools-1' }],
  });
  const stopReasons = (): string[] =>
    incoming
      .filter((m) => m.method === 'session/update')
      .map((m) => (m.params as SessionNotification).update)
      .filter(
        (u) =>
          u.sessionUpdate === 'state_update' &&
          typeof (u as { stopReason?: unknown }).stopReason === 'string',
      )
      .map((u) => (u as { stopReason: string }).stopReason);
  const prompt = (text: string) =>
    connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return { connection, incoming, until, stopReasons, prompt, sessionId };
}

describe.each([
  { wait: 'mcp/message', command: '/mcp' },
  { wait: 'mcp/message', command: '/mcp @tools-1 word_count {"text": "a b"}' },
  { wait: 'session/request_permission', command: '/write secret.txt' },
  { wait: 'elicitation/create', command: '/ask which file?' },
])('session/cancel while the turn waits on an unanswered $wait ($command)', ({ wait, command }) => {
  it('withdraws it and ends the turn cancelled although the client never answers, and the next prompt is served', async () => {
    const t = await hungClient();
    await t.prompt(command);
    await t.until(() => t.incoming.some((m) => m.method === wait));
    await t.connection.sendNotification('session/cancel', { sessionId: t.sessionId });
    await t.until(() => t.stopReasons().length === 1);
    const asked = t.incoming.find((m) => m.method === wait)!;
    const withdrawn = t.incoming
      .filter((m) => m.method === '$/cancel_request')
      .map((m) => (m.params as { requestId: unknown }).requestId);
    expect({ stopReasons: t.stopReasons(), withdrawn }).toEqual({
      stopReasons: ['cancelled'],
      withdrawn: [asked.id],
    });
    await t.prompt('hello');
    await t.until(() => t.stopReasons().length === 2);
    expect(t.stopReasons()).toEqual(['cancelled', 'end_turn']);
  }, 30_000);
});
