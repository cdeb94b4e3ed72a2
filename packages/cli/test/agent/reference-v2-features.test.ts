/**
 * The reference agent's v2 session features over the real `acp-kit agent` process: config options,
 * slash commands, /run (tool call, display terminal, plan, notice, usage), /ask (elicitation),
 * /title, session/list, close and delete, --require-login — and replay of every retained kind under
 * its IDs after the agent process restarts on the same SQLite file.
 */
import { join } from 'node:path';
import type { SessionNotification } from '@acp-kit/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentProcess,
  clientOver,
  idleCount,
  requireBuild,
  type TestClient,
  tempDir,
  textOf,
} from '../harness.js';

beforeAll(requireBuild);
const temp = tempDir();
afterAll(() => temp.cleanup());

type Update = SessionNotification['update'];
const RETAINED_STATE_FREE = (u: Update): boolean =>
  u.sessionUpdate !== 'state_update' &&
  !u.sessionUpdate.startsWith('user_message') &&
  !u.sessionUpdate.startsWith('agent_message');

async function started(args: string[], options: Parameters<typeof clientOver>[1] = {}) {
  const transport = agentProcess(args);
  const t = await clientOver(transport, options);
  return { t, stop: () => transport.shutdown() };
}

const agentText = (t: TestClient): string[] =>
  t
    .updates()
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => textOf([(u as { content: unknown }).content]));

describe('acp-kit agent: v2 session features', () => {
  it('replays tool calls, terminals, plans, notices, usage, commands, titles and config changes under their IDs after a restart with SQLite history', async () => {
    const db = join(temp.dir, 'replay.db');
    const first = await started(['--history', db, '--chunk-delay', '1']);
    const created = await first.t.client.createSession({ cwd: '/repo' });
    const { sessionId } = created;
    expect(created.configOptions?.map((o) => o.configId)).toEqual(['mode', 'model']);
    expect(created.availableCommands?.map((c) => c.name)).toEqual([
      'run',
      'ask',
      'title',
      'note',
      'status',
      'write',
      'compact',
    ]);
    await first.t.client.setConfigOption(sessionId, 'model', 'echo-twice');
    let turns = 0;
    for (const text of ['/run npm test', '/title Replay check', 'two words']) {
      await first.t.client.prompt(sessionId, [{ type: 'text', text }]);
      await idleCount(first.t, ++turns);
    }
    const live = first.t.updates().filter(RETAINED_STATE_FREE);
    expect(live.map((u) => u.sessionUpdate)).toEqual([
      'config_option_update',
      'available_commands_update',
      'plan_update',
      'tool_call_update',
      'terminal_update',
      'tool_call_content_chunk',
      'terminal_output_chunk',
      'terminal_output_chunk',
      'terminal_output_chunk',
      'terminal_output_chunk',
      'terminal_update',
      'tool_call_content_chunk',
      'tool_call_update',
      'plan_update',
      'notice',
      'usage_update',
      'session_info_update',
    ]);
    // echo-twice: the reply says its sentence twice.
    expect(
      agentText(first.t)
        .join('')
        .match(/You said 2 words/g),
    ).toHaveLength(2);
    await first.stop();

    const second = await started(['--history', db]);
    const { sessions } = await second.t.client.listSessions();
    expect(sessions).toEqual([expect.objectContaining({ sessionId, cwd: '/repo', title: 'Replay check' })]);
    const resumed = await second.t.client.resume(sessionId, { cwd: '/repo', replay: true });
    expect(resumed.configOptions?.find((o) => o.configId === 'model')).toMatchObject({
      currentValue: 'echo-twice',
    });
    const replayed = second.t.updates().filter(RETAINED_STATE_FREE);
    // Replay clears the tool call's content and the terminal's output before their chunks append
    // (a client that already holds them must not get the chunks twice); all else exactly as live.
    const reset = (u: Update): Update =>
      u.sessionUpdate === 'tool_call_update' && (u as { title?: unknown }).title !== undefined
        ? ({ ...u, content: null } as Update)
        : u.sessionUpdate === 'terminal_update' && (u as { command?: unknown }).command !== undefined
          ? ({ ...u, output: null } as Update)
          : u;
    expect(replayed).toEqual(live.map(reset));
    // The IDs are the ones the first process issued.
    const ids = (updates: Update[]) =>
      updates
        .map(
          (u) =>
            (u as { toolCallId?: string; terminalId?: string }).toolCallId ??
            (u as { terminalId?: string }).terminalId,
        )
        .filter(Boolean);
    expect(ids(replayed)).toEqual(ids(live));
    await second.stop();
  });

  it('removes the plan /run reported on /unplan (plan_removed, unstable), live and in a replay', async () => {
    const db = join(temp.dir, 'unplan.db');
    const { t, stop } = await started(['--unstable', '--history', db, '--chunk-delay', '1'], {
      unstable: true,
    });
    const sessionId = await t.client.newSession('/repo');
    await t.client.prompt(sessionId, [{ type: 'text', text: '/run ls' }]);
    await idleCount(t, 1);
    await t.client.prompt(sessionId, [{ type: 'text', text: '/unplan' }]);
    await idleCount(t, 2);
    const plans = (updates: Update[]) =>
      updates
        .filter((u) => u.sessionUpdate.startsWith('plan_'))
        .map((u) => [
          u.sessionUpdate,
          (u as { planId?: string }).planId ?? (u as { plan: { planId: string } }).plan.planId,
        ]);
    const live = plans(t.updates());
    expect(live).toEqual([
      ['plan_update', 'plan_run'],
      ['plan_update', 'plan_run'],
      ['plan_removed', 'plan_run'],
    ]);
    expect(agentText(t).at(-1)).toBe('Plan plan_run removed.');
    await stop();

    const second = await started(['--unstable', '--history', db], { unstable: true });
    await second.t.client.resume(sessionId, { cwd: '/repo', replay: true });
    expect(plans(second.t.updates())).toEqual(live);
    await second.stop();
  });

  it('reports /plan as a Markdown plan (unstable plan content), kept whole by the store and in a replay', async () => {
    const db = join(temp.dir, 'plan.db');
    const { t, stop } = await started(['--unstable', '--history', db], { unstable: true });
    const sessionId = await t.client.newSession('/repo');
    await t.client.prompt(sessionId, [{ type: 'text', text: '/plan 1. Read the test\n2. Fix it' }]);
    await idleCount(t, 1);
    await t.client.prompt(sessionId, [{ type: 'text', text: '/plan 1. Ship it' }]);
    await idleCount(t, 2);
    const markdown = { type: 'markdown', planId: 'plan_notes', content: '1. Ship it' };
    // A later plan_update for the same planId replaces the plan whole.
    const plansOf = (store: typeof t.client.store) =>
      store.snapshot(sessionId).plans.map((p) => (p.update as { plan: unknown }).plan);
    expect(plansOf(t.client.store)).toEqual([markdown]);
    await stop();

    const second = await started(['--unstable', '--history', db], { unstable: true });
    await second.t.client.resume(sessionId, { cwd: '/repo', replay: true });
    expect(plansOf(second.t.client.store)).toEqual([markdown]);
    await second.stop();
  });

  it('lists, closes and deletes sessions; a deleted session is gone from the SQLite file', async () => {
    const db = join(temp.dir, 'delete.db');
    const first = await started(['--history', db]);
    const init = await first.t.client.initialize();
    expect(init.capabilities?.session?.delete).toEqual({});
    const keep = await first.t.client.newSession('/repo');
    const drop = await first.t.client.newSession('/repo');
    await first.t.client.prompt(drop, [{ type: 'text', text: 'hello' }]);
    await idleCount(first.t, 1);
    expect(await first.t.client.closeSession(keep)).toEqual({});
    expect(await first.t.client.deleteSession(drop)).toEqual({});
    expect((await first.t.client.listSessions()).sessions.map((s) => s.sessionId)).toEqual([keep]);
    await first.stop();

    const second = await started(['--history', db]);
    expect((await second.t.client.listSessions()).sessions.map((s) => s.sessionId)).toEqual([keep]);
    await expect(second.t.client.resume(drop, { cwd: '/repo', replay: true })).rejects.toMatchObject({
      code: -32002,
      data: { sessionId: drop },
    });
    await second.t.client.resume(keep, { cwd: '/repo' });
    await second.stop();
  });

  it('stops /run on tool_call/cancel, asks through /ask, and changes commands with the mode', async () => {
    let asked = '';
    const { t, stop } = await started(['--chunk-delay', '2000'], {
      capabilities: { elicitation: { form: {} } },
      onElicitation: (request) => {
        asked = request.message;
        return { action: 'accept', content: { answer: 'green' } };
      },
    });
    const sessionId = await t.client.newSession('/repo');
    await t.client.prompt(sessionId, [{ type: 'text', text: '/run sleep 60' }]);
    await t.until(() => t.updates().some((u) => u.sessionUpdate === 'terminal_output_chunk'));
    const call = t.updates().find((u) => u.sessionUpdate === 'tool_call_update') as {
      toolCallId: string;
      capabilities?: unknown;
    };
    expect(call.capabilities).toEqual({ cancel: {} });
    await t.connection.sendRequest('tool_call/cancel', { sessionId, toolCallId: call.toolCallId });
    await idleCount(t, 1);
    expect(
      t
        .updates()
        .filter((u) => u.sessionUpdate === 'terminal_update')
        .at(-1),
    ).toMatchObject({
      exitStatus: { signal: 'SIGTERM' },
    });
    expect(
      t
        .updates()
        .filter((u) => u.sessionUpdate === 'tool_call_update')
        .at(-1),
    ).toMatchObject({ status: 'failed' });

    await t.client.prompt(sessionId, [{ type: 'text', text: '/ask Which colour?' }]);
    await idleCount(t, 2);
    expect(asked).toBe('Which colour?');
    expect(agentText(t).at(-1)).toBe('You answered: green');

    await t.client.setConfigOption(sessionId, 'mode', 'ask');
    await t.until(() =>
      t
        .updates()
        .some(
          (u) =>
            u.sessionUpdate === 'available_commands_update' &&
            JSON.stringify(u).includes('Say which command would run (ask mode)'),
        ),
    );
    await t.client.prompt(sessionId, [{ type: 'text', text: '/run rm -rf /' }]);
    await idleCount(t, 3);
    expect(agentText(t).at(-1)).toBe('In ask mode I would run: rm -rf /');
    await expect(t.client.setConfigOption(sessionId, 'mode', 'yolo')).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/value' },
    });
    await stop();
  });

  it('with --require-login answers session methods -32000 until auth/login', async () => {
    const { t, stop } = await started(['--require-login']);
    const init = await t.client.initialize();
    expect(init.authMethods?.map((m) => m.methodId)).toEqual(['reference']);
    await expect(t.client.newSession('/repo')).rejects.toMatchObject({ code: -32000 });
    await expect(t.client.listSessions()).rejects.toMatchObject({ code: -32000 });
    await expect(t.client.login('nope')).rejects.toMatchObject({ code: -32602 });
    await t.client.login('reference');
    const sessionId = await t.client.newSession('/repo');
    expect((await t.client.listSessions()).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    await t.client.logout();
    await expect(t.client.listSessions()).rejects.toMatchObject({ code: -32000 });
    await stop();
  });
});
