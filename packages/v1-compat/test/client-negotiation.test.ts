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
