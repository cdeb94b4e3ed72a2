/**
 * Session modes over v1, against `acp-kit agent` as a real child process: the official SDK's v1
 * client (its default entry) sees the reference agent's `mode` configuration option as v1 session
 * modes, switches them with `session/set_mode` (served as v2 `session/set_config_option` by the
 * in-process codec), follows them through `current_mode_update`, and each session keeps its own
 * mode. Every line the agent writes is checked against our v1 schema.
 */
import { client as officialV1Client } from '@agentclientprotocol/sdk';
import { v1Validation } from '@acp-kit/v1-compat';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

type V1Update = { sessionUpdate: string; currentModeId?: string; content?: { text?: string } };

const errorOf = (promise: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (error: { code: number; message: string; data?: unknown }) => error,
  );

describe('the official v1 client switching session modes on `acp-kit agent` (negotiated down to v1)', () => {
  it('gets modes with each session, switches one session with session/set_mode, and the other keeps its mode', async () => {
    const agent = spawnAgentProcess();
    running = agent;
    const updates = new Map<string, V1Update[]>();
    const app = officialV1Client({ name: 'official-v1-modes' }).onNotification(
      'session/update',
      ({ params }) => {
        const list = updates.get(params.sessionId) ?? [];
        list.push(params.update as V1Update);
        updates.set(params.sessionId, list);
      },
    );
    const outcome = await app.connectWith(agent.stream, async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const a = await ctx.buildSession('/tmp').start();
      const b = await ctx.buildSession('/tmp').start();
      const switched = await ctx.request('session/set_mode', { sessionId: a.sessionId, modeId: 'ask' });
      const inA = await a.prompt('/run ls');
      const textA = await a.readText();
      const inB = await b.prompt('/run ls');
      const seenB: string[] = [];
      for (;;) {
        const message = await b.nextUpdate();
        if (message.kind === 'stop') break;
        seenB.push(message.update.sessionUpdate);
      }
      const unknownMode = await errorOf(
        ctx.request('session/set_mode', { sessionId: a.sessionId, modeId: 'yolo' }),
      );
      const unknownSession = await errorOf(
        ctx.request('session/set_mode', { sessionId: 'sess_nope', modeId: 'ask' }),
      );
      // Through the v1 config option method too: session b's mode option set to ask.
      const viaOption = (await ctx.request('session/set_config_option', {
        sessionId: b.sessionId,
        configId: 'mode',
        value: 'ask',
      })) as { configOptions: { id: string; currentValue: unknown }[] };
      a.dispose();
      b.dispose();
      const loadedA = await ctx.request('session/load', {
        sessionId: a.sessionId,
        cwd: '/tmp',
        mcpServers: [],
      });
      const loadedB = await ctx.request('session/load', {
        sessionId: b.sessionId,
        cwd: '/tmp',
        mcpServers: [],
      });
      return {
        modesA: a.modes,
        modesB: b.modes,
        ids: [a.sessionId, b.sessionId] as const,
        switched,
        inA,
        textA,
        inB,
        seenB,
        unknownMode,
        unknownSession,
        viaOption,
        loadedA,
        loadedB,
      };
    });

    // Each session/new answer carries the reference agent's mode option as v1 modes.
    for (const modes of [outcome.modesA, outcome.modesB]) {
      expect(modes).toEqual({
        currentModeId: 'code',
        availableModes: [
          { id: 'code', name: expect.stringMatching(/^Code/) },
          { id: 'ask', name: expect.stringMatching(/^Ask/) },
        ],
      });
    }
    expect(outcome.switched).toEqual({});
    const [idA, idB] = outcome.ids;
    // Session a followed its switch (current_mode_update); session b saw none until its own change.
    const modeUpdates = (id: string) =>
      (updates.get(id) ?? [])
        .filter((u) => u.sessionUpdate === 'current_mode_update')
        .map((u) => u.currentModeId);
    expect(modeUpdates(idA)[0]).toBe('ask');
    // In ask mode /run only says what it would run; session b, still in code mode, runs it as a tool call.
    expect(outcome.inA).toEqual({ stopReason: 'end_turn' });
    expect(outcome.textA).toBe('In ask mode I would run: ls');
    expect(outcome.inB).toEqual({ stopReason: 'end_turn' });
    expect(outcome.seenB).toContain('tool_call');
    expect(outcome.unknownMode).toMatchObject({ code: -32602, data: { pointer: '/params/modeId' } });
    expect(outcome.unknownSession).toMatchObject({ code: -32002, data: { sessionId: 'sess_nope' } });
    expect(outcome.viaOption.configOptions.find((o) => o.id === 'mode')?.currentValue).toBe('ask');
    expect(modeUpdates(idB).at(-1)).toBe('ask');
    // The modes are kept per session: session/load answers each with its own current mode.
    expect(outcome.loadedA).toMatchObject({ modes: { currentModeId: 'ask' } });
    expect(outcome.loadedB).toMatchObject({ modes: { currentModeId: 'ask' } });

    for (const message of agent.wire) {
      if (message.method === undefined) continue;
      const checked = v1Validation.validateParams(message.method, message.params);
      expect(checked?.ok ? [] : checked?.issues, JSON.stringify(message)).toEqual([]);
    }
    // Nothing else goes wrong; what a v1 client cannot be shown is logged, not dropped silently: `/run`'s
    // terminal (v1 has no terminal updates) and its notice (this client did not advertise session.notices).
    const lines = agent
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    const loss =
      /^acp-kit agent: left out (terminal_update|terminal_output_chunk|notice) \(whole update\) for session sess_\S+: (v1 shows terminals only|the v1 client did not advertise session\.notices)/;
    expect(lines.filter((line) => !loss.test(line))).toEqual([]);
    expect(lines.some((line) => line.includes('left out notice'))).toBe(true);
  });
});
