/**
 * `session/delete` of a session that never existed, or was deleted already, answers `{}` (#47
 * item 3, found by upstream's test kit; upstream's v2 draft, session-delete, "Semantics": SHOULD
 * succeed silently) — the reference agent, `bridge --serve v2` in front of an official-SDK v1 agent
 * that itself answers -32002, and a v1 client through the v1 codec. Bad params are still -32602.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../harness.js';
import { bridgedV1Agent, closeRawWires, initializeV2, type RawWire, rawWire } from '../raw-wire.js';

beforeAll(requireBuild);
afterEach(closeRawWires);

async function expectDeletesSilently(wire: RawWire): Promise<void> {
  expect((await wire.request(1, 'session/delete', { sessionId: 'tck-never-created' })).result).toEqual({});
  const created = await wire.request(2, 'session/new', { cwd: '/tmp', mcpServers: [] });
  const { sessionId } = created.result;
  expect((await wire.request(3, 'session/delete', { sessionId })).result).toEqual({});
  expect((await wire.request(4, 'session/delete', { sessionId })).result).toEqual({});
  expect((await wire.request(5, 'session/list', {})).result.sessions).toEqual([]);
  expect((await wire.request(6, 'session/delete', { sessionId: 7 })).error).toMatchObject({
    code: -32602,
    data: { pointer: '/params/sessionId' },
  });
}

describe('session/delete of an unknown or already-deleted session', () => {
  it('answers {} from acp-kit agent', async () => {
    const wire = rawWire(['agent']);
    await initializeV2(wire);
    await expectDeletesSilently(wire);
  });

  it('answers {} through bridge --serve v2, whose v1 agent answers -32002', async () => {
    const wire = bridgedV1Agent();
    await initializeV2(wire);
    await wire.request('login', 'auth/login', { methodId: 'token' });
    await expectDeletesSilently(wire);
  });

  it('answers {} to a v1 client of acp-kit agent (the v1 codec)', async () => {
    const wire = rawWire(['agent']);
    await wire.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    await expectDeletesSilently(wire);
  });
});
