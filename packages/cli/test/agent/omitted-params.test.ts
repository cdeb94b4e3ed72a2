/**
 * JSON-RPC 2.0 lets a request omit `params` (#47 item 1, found by upstream's test kit): where the
 * method's params require no property, the omission is read as `{}` — by the reference agent, in a
 * batch, through `bridge --serve v2` in front of an official-SDK v1 agent, and through the v1 codec
 * (a v1 client of the same agent). A method whose params require something still gets -32602 at
 * `/params`.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../harness.js';
import { bridgedV1Agent, closeRawWires, initializeV2, type RawWire, rawWire } from '../raw-wire.js';

beforeAll(requireBuild);
afterEach(closeRawWires);

const PARAMS_REQUIRED = { code: -32602, data: { pointer: '/params', expected: 'object' } };

async function expectOmittedParamsRead(wire: RawWire): Promise<void> {
  expect((await wire.request(1, 'session/list')).result).toEqual({ sessions: [] });
  expect((await wire.request(2, 'session/new')).error).toMatchObject(PARAMS_REQUIRED);
  wire.send([
    { jsonrpc: '2.0', id: 3, method: 'session/list' },
    { jsonrpc: '2.0', id: 4, method: 'session/delete' },
  ]);
  const batch = await wire.next(Array.isArray);
  const byId = new Map(batch.map((m: { id: number }) => [m.id, m]));
  expect(byId.get(3)).toMatchObject({ result: { sessions: [] } });
  expect(byId.get(4)).toMatchObject({ error: PARAMS_REQUIRED });
}

describe('an omitted params', () => {
  it('is {} to acp-kit agent for a method whose params require nothing (alone and in a batch), and -32602 at /params otherwise', async () => {
    const wire = rawWire(['agent']);
    await initializeV2(wire);
    await expectOmittedParamsRead(wire);
    // auth/logout requires nothing either: an agent without login methods refuses it, not its params.
    const logout = await wire.request(5, 'auth/logout');
    expect(logout.error?.data?.pointer).not.toBe('/params');
  });

  it('is {} to acp-kit agent --require-login for auth/logout', async () => {
    const wire = rawWire(['agent', '--require-login']);
    const init = await initializeV2(wire);
    const methodId = init.result.authMethods[0].methodId;
    expect((await wire.request(1, 'auth/login', { methodId })).result).toEqual({});
    expect((await wire.request(2, 'auth/logout')).result).toEqual({});
  });

  it('is {} through bridge --serve v2 in front of an official-SDK v1 agent', async () => {
    const wire = bridgedV1Agent();
    await initializeV2(wire);
    expect((await wire.request('login', 'auth/login', { methodId: 'token' })).result).toEqual({});
    await expectOmittedParamsRead(wire);
  });

  it('is {} to the v1 codec of acp-kit agent (a v1 client), and -32602 at /params where v1 requires params', async () => {
    const wire = rawWire(['agent']);
    await wire.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect((await wire.request(1, 'session/list')).result).toEqual({ sessions: [] });
    expect((await wire.request(2, 'session/new')).error).toMatchObject(PARAMS_REQUIRED);
  });
});
