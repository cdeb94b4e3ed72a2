/**
 * A v2 agent with login, a mode option, a model option, commands and a title, served to a v1
 * client by the bridge process (`bridge-main.ts v1 node --import tsx v2-agent.ts`, with
 * `V2_FEATURES=1`): every method the bridge announces to the v1 client reaches the agent, and the
 * agent's updates arrive in v1's shapes.
 */
import { Connection, createInProcessPair, spawnTransport } from '@acp-kit/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../src/generated/v1/methods.js';
import type * as V1 from '../src/generated/v1/types.js';
import { runBridge, v1SchemaValidator } from '../src/index.js';
import { bridgeArgs, fixture } from './helpers.js';

type V1Client = Connection<ClientRequestMap, ClientNotificationMap, AgentRequestMap, AgentNotificationMap>;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function start() {
  const transport = spawnTransport(process.execPath, bridgeArgs('v1', 'v2-agent.ts'), {
    env: { ...process.env, V2_FEATURES: '1' },
    onStderr: (text) => process.stderr.write(text),
  });
  closers.push(() => transport.shutdown({ graceMs: 1000 }));
  const v1: V1Client = new Connection(transport, { validator: v1SchemaValidator });
  const updates: V1.SessionUpdate[] = [];
  const waiters: { test: (u: V1.SessionUpdate) => boolean; resolve: () => void }[] = [];
  v1.onNotification('session/update', (params) => {
    updates.push(params.update);
    for (const w of [...waiters])
      if (w.test(params.update)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  v1.onRequest('session/request_permission', () => ({ outcome: { outcome: 'cancelled' } }));
  const asked: V1.CreateElicitationRequest[] = [];
  v1.onRequest('elicitation/create', (params) => {
    asked.push(params);
    return { action: 'accept', content: { colour: 'teal' } };
  });
  v1.listen();
  const waitFor = (test: (u: V1.SessionUpdate) => boolean, from = 0) =>
    updates.slice(from).some(test)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ test, resolve }));
  return { v1, updates, waitFor, asked };
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

describe('a v2 agent with login, modes and options behind `--serve v1`', () => {
  it('routes authenticate, set_mode, set_config_option, list, close, delete and logout, and sends modes and commands in v1 shape', async () => {
    const { v1, updates, waitFor } = start();
    const init = await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.authMethods).toEqual([{ id: 'token', name: 'Token' }]);
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, close: {}, delete: {} });
    expect(init.agentCapabilities?.auth).toEqual({ logout: {} });

    await expect(v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })).rejects.toMatchObject({
      code: -32000,
    });
    expect(await v1.sendRequest('authenticate', { methodId: 'token' })).toEqual({});
    const created = await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] });
    const { sessionId } = created;
    expect(created.modes).toEqual({
      currentModeId: 'ask',
      availableModes: [
        { id: 'ask', name: 'Ask' },
        { id: 'code', name: 'Code' },
      ],
    });
    expect(created.configOptions?.map((o) => o.id)).toEqual(['mode', 'model']);

    // session/set_mode is the v2 mode option; the v2 config_option_update comes back as both.
    expect(await v1.sendRequest('session/set_mode', { sessionId, modeId: 'code' })).toEqual({});
    await waitFor((u) => u.sessionUpdate === 'current_mode_update');
    expect(updates.find((u) => u.sessionUpdate === 'current_mode_update')).toEqual({
      sessionUpdate: 'current_mode_update',
      currentModeId: 'code',
    });
    expect(updates.some((u) => u.sessionUpdate === 'config_option_update')).toBe(true);
    // A mode the agent does not have is refused at the v1 field, /params/modeId.
    await expect(v1.sendRequest('session/set_mode', { sessionId, modeId: 'yolo' })).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/modeId' },
    });

    const set = await v1.sendRequest('session/set_config_option', {
      sessionId,
      configId: 'model',
      value: 'smart',
    });
    expect(set.configOptions.map((o) => [o.id, (o as { currentValue?: unknown }).currentValue])).toEqual([
      ['mode', 'code'],
      ['model', 'smart'],
    ]);

    // Commands and title in v1 shape, and a mode switch from inside a turn.
    const from = updates.length;
    expect(await v1.sendRequest('session/prompt', { sessionId, prompt: text('/code') })).toEqual({
      stopReason: 'end_turn',
    });
    expect(updates.filter((u) => u.sessionUpdate.startsWith('_'))).toEqual([]);
    expect(updates.slice(from).some((u) => u.sessionUpdate === 'config_option_update')).toBe(true);

    // A session load answers with the modes and options, and replays commands and title natively.
    const loadFrom = updates.length;
    const loaded = await v1.sendRequest('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('code');
    expect(updates.slice(loadFrom).find((u) => u.sessionUpdate === 'available_commands_update')).toEqual({
      sessionUpdate: 'available_commands_update',
      availableCommands: [{ name: 'plan', description: 'Make a plan' }],
    });

    const listed = await v1.sendRequest('session/list', {});
    expect(listed.sessions.map((s) => [s.sessionId, s.title])).toEqual([[sessionId, 'Fixture session']]);
    expect(await v1.sendRequest('session/close', { sessionId })).toEqual({});
    expect(await v1.sendRequest('session/delete', { sessionId })).toEqual({});
    expect((await v1.sendRequest('session/list', {})).sessions).toEqual([]);

    expect(await v1.sendRequest('logout', {})).toEqual({});
    await expect(v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })).rejects.toMatchObject({
      code: -32000,
    });
    v1.close();
  });

  it('asks a v1 client that advertised elicitation in v1 form and hands its answer to the v2 agent', async () => {
    const { v1, updates, asked } = start();
    await v1.sendRequest('initialize', {
      protocolVersion: 1,
      clientCapabilities: { elicitation: { form: {} } },
    });
    await v1.sendRequest('authenticate', { methodId: 'token' });
    const { sessionId } = await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] });
    const from = updates.length;
    expect(await v1.sendRequest('session/prompt', { sessionId, prompt: text('/ask') })).toEqual({
      stopReason: 'end_turn',
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ sessionId, mode: 'form', message: 'Which colour?' });
    const said = updates
      .slice(from)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u as { content: { text?: string } }).content.text ?? '')
      .join('');
    expect(said).toBe('accept: teal');
    v1.close();
  });

  it('leaves a command whose input type v1 does not know out of the v1 list and logs that it did', async () => {
    const [clientSide, bridgeSide] = createInProcessPair();
    const logged: string[] = [];
    const run = runBridge({
      serve: 'v1',
      command: 'env',
      args: ['V2_FEATURES=1', process.execPath, '--import', 'tsx', fixture('v2-agent.ts')],
      client: bridgeSide,
      graceMs: 500,
      log: (line) => logged.push(line),
    });
    const v1: V1Client = new Connection(clientSide, { validator: v1SchemaValidator });
    const updates: V1.SessionUpdate[] = [];
    v1.onNotification('session/update', (params) => {
      updates.push(params.update);
    });
    v1.listen();
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await v1.sendRequest('authenticate', { methodId: 'token' });
    const { sessionId } = await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] });

    // The v2 agent offers `plan` and `attach` (input type `file`): the v1 client still gets `plan`.
    await vi.waitFor(() =>
      expect(updates.some((u) => u.sessionUpdate === 'available_commands_update')).toBe(true),
    );
    expect(updates.filter((u) => u.sessionUpdate === 'available_commands_update')).toEqual([
      {
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'plan', description: 'Make a plan' }],
      },
    ]);
    await vi.waitFor(() =>
      expect(logged).toContain(
        `acp-kit bridge: left out available_commands_update /availableCommands/1 for session ${sessionId}: ` +
          'command "attach": AvailableCommandInput type "file" has no v1 form\n',
      ),
    );
    v1.close();
    expect(await run).toBe(0);
  });
});
