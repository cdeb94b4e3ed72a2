/**
 * `acp-kit bridge --serve v1 -- acp-kit agent` as processes, driven by a v1 client: a
 * `session/cancel` sent right behind a `session/prompt` applies to that prompt's turn.
 */
import { Connection, spawnTransport } from '@acp-kit/sdk';
import { v1SchemaValidator } from '@acp-kit/v1-compat';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild } from '../harness.js';

beforeAll(requireBuild);
const open: Connection[] = [];
afterEach(() => {
  for (const connection of open.splice(0)) connection.close();
});

async function v1Client() {
  const transport = spawnTransport(
    process.execPath,
    [BIN, 'bridge', '--serve', 'v1', '--', process.execPath, BIN, 'agent', '--chunk-delay', '20'],
    { name: 'bridge' },
  );
  // A v1 client: it calls v1 agent methods and validates what it gets against the v1 schema.
  const connection = new Connection(transport, { validator: v1SchemaValidator });
  connection.listen();
  open.push(connection);
  await connection.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = (await connection.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
    sessionId: string;
  };
  return { connection, sessionId };
}

describe('acp-kit bridge --serve v1', () => {
  it('ends a prompt cancelled right after it was sent with stopReason cancelled', {
    timeout: 60_000,
  }, async () => {
    const { connection, sessionId } = await v1Client();
    const text = 'Tell me a long story about bridges. '.repeat(20);
    for (let round = 0; round < 3; round++) {
      const turn = connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
      await connection.sendNotification('session/cancel', { sessionId });
      // The idle's usage (tokens counted before the cancel) may come along: v1's unstable usage field.
      expect(await turn).toMatchObject({ stopReason: 'cancelled' });
    }
    const after = await connection.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    });
    expect(after).toMatchObject({ stopReason: 'end_turn', usage: { outputTokens: expect.any(Number) } });
  });
});
