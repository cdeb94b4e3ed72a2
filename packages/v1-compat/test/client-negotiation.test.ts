/**
 * Our client, built for v2, talks to an agent written with the official SDK's v1 API — a real
 * child process, no bridge process: the agent answers `initialize` with `protocolVersion: 1`, and
 * `negotiateClientVersion` with `v1WireCodec` switches the connection to the v1→v2 translation in
 * process. The client keeps its v2 API: insertion receipts, the user message under that ID,
 * `idle` at the end of the turn, a permission request answered through the v2 callback.
 */
import {
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
  negotiateClientVersion,
  schemaValidator,
  spawnTransport,
} from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { v1WireCodec } from '../src/index.js';
import { fixture } from './helpers.js';

const clients: Client[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

function connect(env: Record<string, string> = {}) {
  const transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture('official-v1-agent.ts')], {
    env: { ...process.env, ...env },
    name: 'official v1 agent',
    onStderr: (text) => process.stderr.write(text),
  });
  const versions: number[] = [];
  const wire: { direction: string; message: unknown }[] = [];
  const connection: ClientConnection = new Connection(
    negotiateClientVersion(transport, { codecs: [v1WireCodec], onNegotiated: (v) => versions.push(v) }),
    { validator: schemaValidator },
  );
  connection.onMessage((direction, message) => wire.push({ direction, message }));
  const client = new Client(connection, {
    info: { name: 'acp-kit-client', version: '0.0.0' },
    onPermission: async (request) => ({
      outcome: { outcome: 'selected', optionId: request.options[0]!.optionId },
    }),
  });
  clients.push(client);
  return { client, versions, wire, exited: transport.exited };
}

describe('our v2 client against an official v1 agent, negotiated to v1 in process', () => {
  for (const echo of ['ids', 'none'] as const) {
    it(`gets the v2 lifecycle: receipt, the user message under its ID, the reply, idle/end_turn (echo: ${echo})`, async () => {
      const { client, versions } = connect(echo === 'ids' ? { V1_ECHO: 'ids' } : {});
      const init = await client.initialize();
      expect(versions).toEqual([1]);
      expect(init).toMatchObject({ protocolVersion: 2, info: { name: 'official-v1-fixture' } });
      const sessionId = await client.newSession('/tmp');
      const submission = client.submit(sessionId, [{ type: 'text', text: 'hello over v1' }]);
      const messageId = await submission.messageId;
      const end = await client.store.turnEnd(submission.localId);
      expect(end).toMatchObject({ messageId, stopReason: 'end_turn' });
      const snapshot = client.store.snapshot(sessionId);
      const user = snapshot.messages.find((m) => m.kind === 'user_message');
      expect(user).toMatchObject({ messageId, content: [{ type: 'text', text: 'hello over v1' }] });
      const reply = snapshot.messages.filter((m) => m.kind === 'agent_message');
      expect(reply.flatMap((m) => m.content.map((b) => (b as { text: string }).text)).join('')).toBe(
        'echo: hello over v1',
      );
      expect(snapshot.toolCalls.length).toBeGreaterThan(0);
      expect(snapshot.state.state).toBe('idle');
    });
  }

  it('answers a v1 permission request through the v2 client and finishes the turn', async () => {
    const { client } = connect();
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const submission = client.submit(sessionId, [{ type: 'text', text: 'permission' }]);
    await submission.messageId;
    const end = await client.store.turnEnd(submission.localId);
    expect(end.stopReason).toBe('end_turn');
    const text = client.store
      .snapshot(sessionId)
      .messages.filter((m) => m.kind === 'agent_message')
      .flatMap((m) => m.content.map((b) => (b as { text: string }).text))
      .join('');
    expect(text).toContain('permission: yes');
  });
});

describe('our v2 client negotiated down to a v1 agent that sends a batch', () => {
  it('refuses the batch with one -32600 (id null, v1 has no batches), answers nothing in it, and keeps working', async () => {
    const [clientSide, agentSide] = createInProcessPair();
    // The agent: a raw v1 peer on the other end of real ndjson framing.
    const received: { id?: unknown; method?: string; error?: { code: number } }[] = [];
    agentSide.reader.listen({
      onMessage: (text) => {
        const message = JSON.parse(text) as (typeof received)[number];
        received.push(message);
        if (message.method === 'initialize') {
          void agentSide.writer.write(
            JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1 } }),
          );
        }
        if (message.method === 'session/new') {
          void agentSide.writer.write(
            JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { sessionId: 'sess_v1' } }),
          );
        }
      },
      onFrameError: () => undefined,
      onClose: () => undefined,
    });
    const versions: number[] = [];
    const asked: unknown[] = [];
    const client = new Client(
      new Connection(
        negotiateClientVersion(clientSide, { codecs: [v1WireCodec], onNegotiated: (v) => versions.push(v) }),
        {
          validator: schemaValidator,
        },
      ) as ClientConnection,
      {
        info: { name: 'acp-kit-client', version: '0.0.0' },
        onPermission: async (request) => {
          asked.push(request);
          return { outcome: { outcome: 'cancelled' } };
        },
      },
    );
    clients.push(client);
    await client.initialize();
    expect(versions).toEqual([1]);
    await agentSide.writer.write(
      JSON.stringify([
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'session/request_permission',
          params: {
            sessionId: 'sess_v1',
            toolCall: { toolCallId: 'call_1' },
            options: [{ optionId: 'yes', name: 'Yes', kind: 'allow_once' }],
          },
        },
        {
          jsonrpc: '2.0',
          method: 'session/update',
          params: {
            sessionId: 'sess_v1',
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
          },
        },
      ]),
    );
    await expect
      .poll(() => received.find((m) => m.id === null))
      .toMatchObject({
        id: null,
        error: { code: -32600, message: 'Invalid request: a v1 connection takes no batches' },
      });
    expect(received.some((m) => m.id === 7)).toBe(false);
    expect(asked).toEqual([]);
    expect(await client.newSession('/tmp')).toBe('sess_v1');
  });
});
