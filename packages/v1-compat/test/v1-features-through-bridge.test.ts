/**
 * What editors' v1 agents offer — login, modes, config options, slash commands, titles, session
 * list/close/delete, load — reaches a v2 client through the bridge in v2's own shapes. The v1 agent
 * is the official SDK's (fixture with `V1_FEATURES=1`); the first two tests run the bridge as a real
 * process (`bridge-main.ts v2 …`) — driven by the official SDK's v2 client, then by ours — and the
 * others serve it in-process to several v2 clients.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client as officialClient,
  ndJsonStream,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import type { SessionConfigOption, SessionUpdate } from '@acp-kit/schema';
import { Client, type ClientConnection, Connection, spawnTransport } from '@acp-kit/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientOf, fixture, UpdateLog, type V1Rig, v1Rig } from './helpers.js';

const CWD = '/tmp';
const FEATURES = { V1_FEATURES: '1' };
const currentOf = (options: readonly { configId: string }[] | null | undefined, configId: string) =>
  (options?.find((o) => o.configId === configId) as { currentValue?: unknown } | undefined)?.currentValue;
const isIdle = (u: SessionUpdate) => u.sessionUpdate === 'state_update' && u.state === 'idle';

let rig: V1Rig | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  for (const close of closers.splice(0)) await close();
});

describe('a v1 agent with login, modes, options and commands behind `--serve v2`', () => {
  it('lets the official v2 client log in, switch mode and model, see commands and title natively, prompt, list, close and log out', async () => {
    const errors = vi.spyOn(console, 'error');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fixture('bridge-main.ts'),
        'v2',
        process.execPath,
        '--import',
        'tsx',
        fixture('official-v1-agent.ts'),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...FEATURES } },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    closers.push(async () => {
      errors.mockRestore();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    });
    const updates: UpdateSessionNotification[] = [];
    const app = officialClient({ name: 'official-v2-editor' }).onNotification(
      'session/update',
      ({ params }) => {
        updates.push(params);
      },
    );
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const kinds = () => updates.map((n) => n.update.sessionUpdate);
    await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request('initialize', {
        protocolVersion: 2,
        info: { name: 'official-v2-editor', version: '2.4.0' },
        capabilities: {},
      });
      expect(init.authMethods).toEqual([
        { type: 'agent', methodId: 'token', name: 'Token', description: 'A fixed test token' },
      ]);
      await expect(ctx.request('session/new', { cwd: CWD, mcpServers: [] })).rejects.toMatchObject({
        code: -32000,
      });
      expect(await ctx.request('auth/login', { methodId: 'token' })).toEqual({});
      const created = await ctx.request('session/new', { cwd: CWD, mcpServers: [] });
      const { sessionId } = created;
      expect(
        created.configOptions?.map((o) => [
          o.configId,
          o.category,
          currentOf(created.configOptions, o.configId),
        ]),
      ).toEqual([
        ['model', 'model', 'fast'],
        ['mode', 'mode', 'ask'],
      ]);
      await vi.waitFor(() => expect(kinds()).toContain('session_info_update'), { timeout: 10_000 });
      expect(updates.find((n) => n.update.sessionUpdate === 'available_commands_update')?.update).toEqual({
        sessionUpdate: 'available_commands_update',
        availableCommands: [
          { type: 'command', name: 'plan', description: 'Make a plan' },
          {
            type: 'command',
            name: 'search',
            description: 'Search the web',
            input: { type: 'text', hint: 'query' },
          },
        ],
      });

      const afterMode = await ctx.request('session/set_config_option', {
        type: 'id',
        sessionId,
        configId: 'mode',
        value: 'code',
      });
      expect(currentOf(afterMode.configOptions, 'mode')).toBe('code');
      await vi.waitFor(() => expect(kinds()).toContain('config_option_update'), { timeout: 10_000 });
      const afterModel = await ctx.request('session/set_config_option', {
        type: 'id',
        sessionId,
        configId: 'model',
        value: 'smart',
      });
      expect([
        currentOf(afterModel.configOptions, 'model'),
        currentOf(afterModel.configOptions, 'mode'),
      ]).toEqual(['smart', 'code']);

      const receipt = await ctx.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      });
      await vi.waitFor(() =>
        expect(updates.map((n) => n.update)).toContainEqual({
          sessionUpdate: 'state_update',
          state: 'idle',
          stopReason: 'end_turn',
        }),
      );
      expect(updates.map((n) => n.update)).toContainEqual(
        expect.objectContaining({ sessionUpdate: 'user_message', messageId: receipt.messageId }),
      );

      expect((await ctx.request('session/list', {})).sessions).toEqual([
        { sessionId, cwd: CWD, title: 'Fixture session' },
      ]);
      expect(await ctx.request('session/close', { sessionId })).toEqual({});
      expect(await ctx.request('auth/logout', {})).toEqual({});
      await expect(ctx.request('session/new', { cwd: CWD, mcpServers: [] })).rejects.toMatchObject({
        code: -32000,
      });
    });
    expect(kinds().filter((k) => k.startsWith('_'))).toEqual([]);
    // Every message passed the official SDK's own parsing (it reports failures on console.error).
    expect(errors.mock.calls).toEqual([]);
  });

  it('lets a v2 client log in, switch mode and model, see commands and title natively, list, close and log out', async () => {
    // The bridge as a real process, as `acp-kit bridge --serve v2 -- <v1 agent>` runs it.
    const transport = spawnTransport(
      process.execPath,
      [
        '--import',
        'tsx',
        fixture('bridge-main.ts'),
        'v2',
        process.execPath,
        '--import',
        'tsx',
        fixture('official-v1-agent.ts'),
      ],
      { env: { ...process.env, ...FEATURES }, onStderr: (text) => process.stderr.write(text) },
    );
    closers.push(() => transport.shutdown({ graceMs: 1000 }).then(() => undefined));
    const connection: ClientConnection = new Connection(transport);
    const log = new UpdateLog().tap(connection);
    const client = new Client(connection, { info: { name: 'v2-editor', version: '1' } });

    const init = await client.initialize();
    expect(init.authMethods).toEqual([
      { type: 'agent', methodId: 'token', name: 'Token', description: 'A fixed test token' },
    ]);
    expect(init.capabilities?.session?.delete).toEqual({});

    // The v1 agent requires login: session/new fails until auth/login reached its authenticate.
    await expect(client.newSession(CWD)).rejects.toMatchObject({ code: -32000 });
    expect(await client.login('token')).toEqual({});
    const created = await client.createSession({ cwd: CWD, mcpServers: [] });
    const sessionId = created.sessionId;
    expect(created.configOptions).toEqual([
      {
        type: 'select',
        configId: 'model',
        name: 'Model',
        category: 'model',
        currentValue: 'fast',
        options: [
          { value: 'fast', name: 'Fast' },
          { value: 'smart', name: 'Smart' },
        ],
      },
      {
        type: 'select',
        configId: 'mode',
        name: 'Mode',
        category: 'mode',
        currentValue: 'ask',
        options: [
          { value: 'ask', name: 'Ask', description: 'Answers without changing files' },
          { value: 'code', name: 'Code' },
        ],
      },
    ]);

    // Commands and title arrive as v2's own update kinds.
    await log.waitFor((u) => u.sessionUpdate === 'session_info_update');
    const commands = log.updates.find((u) => u.sessionUpdate === 'available_commands_update');
    expect(commands).toEqual({
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { type: 'command', name: 'plan', description: 'Make a plan' },
        {
          type: 'command',
          name: 'search',
          description: 'Search the web',
          input: { type: 'text', hint: 'query' },
        },
      ],
    });
    expect(log.updates.find((u) => u.sessionUpdate === 'session_info_update')).toMatchObject({
      title: 'Fixture session',
    });

    // The mode option is v1 session/set_mode; the v1 agent's current_mode_update comes back as
    // a config_option_update listing every option.
    const afterMode = await client.setConfigOption(sessionId, 'mode', 'code');
    expect(currentOf(afterMode, 'mode')).toBe('code');
    expect(currentOf(afterMode, 'model')).toBe('fast');
    await log.waitFor((u) => u.sessionUpdate === 'config_option_update');
    const modeUpdate = log.updates.find((u) => u.sessionUpdate === 'config_option_update') as {
      configOptions: SessionConfigOption[];
    };
    expect(currentOf(modeUpdate.configOptions, 'mode')).toBe('code');
    expect(currentOf(modeUpdate.configOptions, 'model')).toBe('fast');

    // Any other option is v1 session/set_config_option; the answer still carries the mode.
    const afterModel = await client.setConfigOption(sessionId, 'model', 'smart');
    expect(currentOf(afterModel, 'model')).toBe('smart');
    expect(currentOf(afterModel, 'mode')).toBe('code');
    // A value the v1 agent refuses comes back as its error.
    await expect(client.setConfigOption(sessionId, 'model', 'huge')).rejects.toMatchObject({ code: -32602 });

    const from = log.notifications.length;
    await client.prompt(sessionId, [{ type: 'text', text: 'hi' }]);
    await log.idle(from);

    expect((await client.listSessions({ cwd: CWD })).sessions).toEqual([
      { sessionId, cwd: CWD, title: 'Fixture session' },
    ]);
    expect(await client.closeSession(sessionId)).toEqual({});
    // Closed on the v1 agent (which recorded it); a closed session stays listed and resumable.
    expect((await client.listSessions()).sessions).toEqual([
      { sessionId, cwd: CWD, title: 'Fixture session', _meta: { closed: true } },
    ]);
    await expect(client.prompt(sessionId, [{ type: 'text', text: 'after close' }])).rejects.toMatchObject({
      code: -32002,
    });

    expect(await client.logout()).toEqual({});
    await expect(client.newSession(CWD)).rejects.toMatchObject({ code: -32000 });
    // Nothing travelled as an extension update.
    expect(log.updates.filter((u) => u.sessionUpdate.startsWith('_'))).toEqual([]);
    client.close();
  });

  it('reports a mode switch from inside a turn as a config_option_update with the other options unchanged', async () => {
    rig = v1Rig(FEATURES);
    await rig.client.initialize();
    await rig.client.login('token');
    const sessionId = await rig.client.newSession(CWD);
    await rig.client.setConfigOption(sessionId, 'model', 'smart');
    const from = rig.log.notifications.length;
    await rig.client.prompt(sessionId, [{ type: 'text', text: '/code' }]);
    await rig.log.idle(from);
    const update = rig.log.updates.slice(from).find((u) => u.sessionUpdate === 'config_option_update') as {
      configOptions: SessionConfigOption[];
    };
    expect(currentOf(update.configOptions, 'mode')).toBe('code');
    expect(currentOf(update.configOptions, 'model')).toBe('smart');
    expect(currentOf(rig.client.store.snapshot(sessionId).configOptions, 'mode')).toBe('code');
  });

  it('ends session/load through the bridge with the current state before the answer, which carries the options and commands', async () => {
    rig = v1Rig(FEATURES);
    await rig.client.initialize();
    await rig.client.login('token');
    const sessionId = await rig.client.newSession(CWD);
    await rig.log.waitFor((u) => u.sessionUpdate === 'available_commands_update');
    await rig.client.setConfigOption(sessionId, 'mode', 'code');
    const from = rig.log.notifications.length;
    await rig.client.prompt(sessionId, [{ type: 'text', text: 'remember me' }]);
    await rig.log.idle(from);

    const second = clientOf(rig.bridge);
    await second.client.initialize();
    const resumed = await second.client.resume(sessionId, { cwd: CWD, replay: true });
    expect(currentOf(resumed.configOptions, 'mode')).toBe('code');
    expect(resumed.availableCommands?.map((c) => c.name)).toEqual(['plan', 'search']);
    const answer = second.log.wire.findIndex(
      (m) => m.result !== undefined && 'configOptions' in (m.result as object),
    );
    const lastUpdate = second.log.wire.findLastIndex((m) => m.method === 'session/update');
    expect(lastUpdate).toBeLessThan(answer);
    expect(second.log.wire[lastUpdate]?.params).toMatchObject({
      sessionId,
      update: { sessionUpdate: 'state_update', state: 'idle' },
    });
    expect(second.log.updates.some((u) => u.sessionUpdate === 'agent_message_chunk')).toBe(true);
    expect(second.log.updates.filter(isIdle)).toHaveLength(1);
    second.client.close();
  });

  it('cancels a running v1 turn on session/close: idle cancelled reaches every attached client and the held prompt gets -32800 before the close is answered', async () => {
    rig = v1Rig(FEATURES);
    await rig.client.initialize();
    await rig.client.login('token');
    const sessionId = await rig.client.newSession(CWD);
    const second = clientOf(rig.bridge);
    closers.push(async () => second.client.close());
    await second.client.initialize();
    await second.client.login('token');
    await second.client.resume(sessionId, { cwd: CWD });
    // `slow` streams until the v1 agent is cancelled.
    await rig.client.prompt(sessionId, [{ type: 'text', text: 'slow' }]);
    await rig.log.waitFor((u) => u.sessionUpdate === 'agent_message_chunk');
    const held = second.client.prompt(sessionId, [{ type: 'text', text: 'after' }]).then(
      () => undefined,
      (error: unknown) => error,
    );
    const cancelledIdle = (u: SessionUpdate) =>
      isIdle(u) && (u as { stopReason?: unknown }).stopReason === 'cancelled';
    expect(rig.log.updates.some(cancelledIdle)).toBe(false);
    expect(await rig.client.closeSession(sessionId)).toEqual({});
    expect(rig.log.updates.filter(cancelledIdle)).toHaveLength(1);
    expect(second.log.updates.filter(cancelledIdle)).toHaveLength(1);
    expect(await held).toMatchObject({ code: -32800 });
  });

  it('passes session/delete through to the v1 agent and forgets the session', async () => {
    rig = v1Rig(FEATURES);
    await rig.client.initialize();
    await rig.client.login('token');
    const kept = await rig.client.newSession(CWD);
    const gone = await rig.client.newSession(CWD);
    expect(await rig.client.deleteSession(gone)).toEqual({});
    expect((await rig.client.listSessions()).sessions.map((s) => s.sessionId)).toEqual([kept]);
    // Deleted already, or never created: {} (upstream's v2 draft: SHOULD succeed silently), though
    // the v1 agent answers -32002.
    expect(await rig.client.deleteSession(gone)).toEqual({});
    expect(await rig.client.deleteSession('v1-sess-never-created')).toEqual({});
    await expect(rig.client.prompt(gone, [{ type: 'text', text: 'still there?' }])).rejects.toMatchObject({
      code: -32002,
    });
  });
});
