/**
 * Tool calls, display terminals, plans, usage, notices, titles, commands, config options,
 * elicitation and authentication in the SDK's Agent, over a real child process (the fixture
 * agent in ./fixtures/v2-agent.ts). Each update kind is reported live and replayed by
 * session/resume under its ID.
 */
import type { CreateElicitationRequest } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, spawnV2Agent, turnsEnded, type V2Child } from './fixtures/spawn-v2-agent.js';

const children: V2Child[] = [];
async function agent(...args: Parameters<typeof spawnV2Agent>): Promise<V2Child> {
  const child = await spawnV2Agent(...args);
  children.push(child);
  return child;
}
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop()));
});

const kinds = (updates: { sessionUpdate: string }[]): string[] => updates.map((u) => u.sessionUpdate);

describe('tool calls, terminals, plans, usage, notices, titles and commands', () => {
  it('reports each as its update kind and replays every one of them under its ID', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'tool' }] });
    await a.until((u) => turnsEnded(u, sessionId));
    const live = a.of(sessionId).filter((u) => u.sessionUpdate !== 'state_update');
    expect(kinds(live)).toEqual([
      'user_message',
      'tool_call_update',
      'terminal_update',
      'tool_call_content_chunk',
      'tool_call_content_chunk',
      'terminal_output_chunk',
      'terminal_output_chunk',
      'terminal_update',
      'tool_call_update',
      'plan_update',
      'usage_update',
      'notice',
      'session_info_update',
      'available_commands_update',
    ]);
    const terminalId = (live[2] as { terminalId: string }).terminalId;
    expect(live[1]).toMatchObject({
      toolCallId: 'call_fixed',
      title: 'Run tests',
      kind: 'execute',
      status: 'in_progress',
      capabilities: { cancel: {} },
    });
    expect(live[2]).toMatchObject({ command: 'npm test', cwd: '/repo', capabilities: { cancel: {} } });
    expect(live[3]).toMatchObject({ toolCallId: 'call_fixed', content: { type: 'terminal', terminalId } });
    expect(live[5]).toMatchObject({ terminalId, data: 'line 1\n' });
    expect(live[7]).toMatchObject({ terminalId, exitStatus: { exitCode: 0 } });
    expect(live[8]).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_fixed',
      status: 'completed',
    });
    expect(live[9]).toMatchObject({ plan: { type: 'items', planId: 'plan_1' } });
    expect(live[10]).toMatchObject({ used: 120, size: 1000, cost: { amount: 0.01, currency: 'USD' } });
    expect(live[11]).toMatchObject({ severity: 'info', title: 'Tests passed' });
    expect(live[12]).toMatchObject({ title: 'Ran the tests' });
    expect((live[13] as { availableCommands: unknown[] }).availableCommands).toHaveLength(2);

    // The title is what session/list now shows; the commands are what session/resume returns.
    const { sessions } = await a.connection.sendRequest('session/list', {});
    expect(sessions[0]).toMatchObject({ sessionId, title: 'Ran the tests' });

    // Resumed with replay: the same updates, in the same order, under the same IDs.
    const before = a.of(sessionId).length;
    const resumed = await a.connection.sendRequest('session/resume', {
      sessionId,
      cwd: '/repo',
      replayFrom: { type: 'start' },
    });
    expect(resumed.availableCommands?.map((cmd) => cmd.name)).toEqual(['tool', 'ask']);
    const replayed = a
      .of(sessionId)
      .slice(before)
      .filter((u) => u.sessionUpdate !== 'state_update');
    expect(kinds(replayed)).toEqual(kinds(live));
    // The tool call's and the terminal's first updates clear the content and output their chunks
    // append to (a client that already holds them must not get the chunks twice); all else as live.
    expect(replayed[1]).toEqual({ ...live[1], content: null });
    expect(replayed[2]).toEqual({ ...live[2], output: null });
    expect(replayed.slice(3)).toEqual(live.slice(3));
  });

  it('stops a cancellable tool call and terminal on tool_call/cancel and terminal/cancel', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'tool-wait' }],
    });
    await a.until((u) => u.some((n) => n.update.sessionUpdate === 'agent_message_chunk'));
    const chunk = a.of(sessionId).find((u) => u.sessionUpdate === 'agent_message_chunk') as {
      content: { text: string };
    };
    const [, toolCallId, terminalId] = chunk.content.text.split(' ') as [string, string, string];

    // Bad input first: each gets its error, and the connection keeps working.
    expect(
      await errorOf(a.connection.sendRequest('tool_call/cancel', { sessionId, toolCallId: 'call_nope' })),
    ).toMatchObject({
      code: -32002,
      data: { toolCallId: 'call_nope' },
    });
    expect(
      await errorOf(a.connection.sendRequest('terminal/cancel', { sessionId, terminalId: 'term_nope' })),
    ).toMatchObject({
      code: -32002,
      data: { terminalId: 'term_nope' },
    });
    expect(
      await errorOf(a.connection.sendRequest('tool_call/cancel', { sessionId: 'sess_nope', toolCallId })),
    ).toMatchObject({
      code: -32002,
      data: { sessionId: 'sess_nope' },
    });
    expect(await errorOf(a.connection.sendRequest('terminal/cancel', { sessionId } as never))).toMatchObject({
      code: -32602,
      data: { pointer: '/params/terminalId' },
    });

    expect(await a.connection.sendRequest('tool_call/cancel', { sessionId, toolCallId })).toEqual({});
    expect(await a.connection.sendRequest('terminal/cancel', { sessionId, terminalId })).toEqual({});
    await a.until((u) => turnsEnded(u, sessionId));
    const tail = a.of(sessionId).slice(-3);
    expect(tail[0]).toMatchObject({
      sessionUpdate: 'terminal_update',
      terminalId,
      exitStatus: { signal: 'SIGTERM' },
    });
    expect(tail[1]).toMatchObject({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
    // Cancelling one tool call does not cancel the turn.
    expect(tail[2]).toMatchObject({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
  });
});

describe('session/set_config_option', () => {
  it('changes one option, answers every option, reports config_option_update and keeps the value', async () => {
    const a = await agent();
    const created = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const { sessionId } = created;
    const answer = await a.connection.sendRequest('session/set_config_option', {
      type: 'id',
      sessionId,
      configId: 'mode',
      value: 'code',
    });
    expect(answer.configOptions.map((o) => [o.configId, o.currentValue])).toEqual([
      ['mode', 'code'],
      ['verbose', false],
    ]);
    await a.until((u) => u.some((n) => n.update.sessionUpdate === 'config_option_update'));
    expect(a.of(sessionId).find((u) => u.sessionUpdate === 'config_option_update')).toEqual({
      sessionUpdate: 'config_option_update',
      configOptions: answer.configOptions,
    });
    const flipped = await a.connection.sendRequest('session/set_config_option', {
      type: 'boolean',
      sessionId,
      configId: 'verbose',
      value: true,
    });
    expect(flipped.configOptions.map((o) => o.currentValue)).toEqual(['code', true]);
    const resumed = await a.connection.sendRequest('session/resume', { sessionId, cwd: '/repo' });
    expect(resumed.configOptions).toEqual(flipped.configOptions);
  });

  it('answers a bad option, value or type with -32602 at its pointer and keeps serving', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const set = (params: object) =>
      errorOf(a.connection.sendRequest('session/set_config_option', { sessionId, ...params } as never));
    expect(await set({ type: 'id', configId: 'colour', value: 'red' })).toMatchObject({
      code: -32602,
      data: { pointer: '/params/configId' },
    });
    expect(await set({ type: 'id', configId: 'mode', value: 'yolo' })).toMatchObject({
      code: -32602,
      data: { pointer: '/params/value', expected: 'one of "ask", "code"' },
    });
    expect(await set({ type: 'boolean', configId: 'mode', value: true })).toMatchObject({
      code: -32602,
      data: { pointer: '/params/type' },
    });
    expect(await set({ type: 'boolean', configId: 'verbose' })).toMatchObject({ code: -32602 });
    expect(await set({ type: '_vendor', configId: 'verbose', value: 1 })).toMatchObject({
      code: -32602,
      data: { pointer: '/params/type' },
    });
    expect(
      await errorOf(
        a.connection.sendRequest('session/set_config_option', {
          type: 'id',
          sessionId: 'sess_nope',
          configId: 'mode',
          value: 'ask',
        }),
      ),
    ).toMatchObject({ code: -32002 });
    const ok = await a.connection.sendRequest('session/set_config_option', {
      type: 'id',
      sessionId,
      configId: 'mode',
      value: 'ask',
    });
    expect(ok.configOptions[0]?.currentValue).toBe('ask');
  });
});

describe('elicitation', () => {
  it('asks a client that advertised forms, returns its answer, and reports requires_action meanwhile', async () => {
    const asked: CreateElicitationRequest[] = [];
    const a = await agent([], { elicitation: { form: {} } }, (connection) => {
      connection.onRequest('elicitation/create', (params) => {
        asked.push(params);
        return { action: 'accept', content: { name: 'Ada' } };
      });
    });
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask' }] });
    await a.until((u) => turnsEnded(u, sessionId));
    expect(asked).toEqual([expect.objectContaining({ mode: 'form', message: 'Your name?', sessionId })]);
    const states = a
      .of(sessionId)
      .filter((u) => u.sessionUpdate === 'state_update')
      .map((u) => (u as { state: string }).state);
    expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
    const text = a.of(sessionId).find((u) => u.sessionUpdate === 'agent_message_chunk') as {
      content: { text: string };
    };
    expect(text.content.text).toBe('answer: {"action":"accept","content":{"name":"Ada"}}');
  });

  it('sends elicitation/complete after an accepted URL elicitation', async () => {
    const a = await agent([], { elicitation: { url: {} } }, (connection) => {
      connection.onRequest('elicitation/create', () => ({ action: 'accept' }));
    });
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'url' }] });
    await a.until((u) => turnsEnded(u, sessionId));
    expect(a.notifications).toEqual([{ method: 'elicitation/complete', params: { elicitationId: 'eli_1' } }]);
  });

  it('does not ask a client without the capability: the outcome is cancel', async () => {
    let asked = 0;
    const a = await agent([], {}, (connection) => {
      connection.onRequest('elicitation/create', () => {
        asked += 1;
        return { action: 'accept' };
      });
    });
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask' }] });
    await a.until((u) => turnsEnded(u, sessionId));
    expect(asked).toBe(0);
    const text = a.of(sessionId).find((u) => u.sessionUpdate === 'agent_message_chunk') as {
      content: { text: string };
    };
    expect(text.content.text).toBe('answer: {"action":"cancel"}');
  });

  it('withdraws the question with $/cancel_request on session/cancel and ends the turn cancelled', async () => {
    const withdrawn: unknown[] = [];
    const a = await agent([], { elicitation: { form: {} } }, (connection) => {
      connection.onRequest('elicitation/create', (_params, { signal }) => {
        return new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            withdrawn.push(signal.reason);
            reject(signal.reason);
          });
        });
      });
    });
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ask' }] });
    await a.until((u) =>
      u.some(
        (n) =>
          n.update.sessionUpdate === 'state_update' &&
          (n.update as { state: string }).state === 'requires_action',
      ),
    );
    await a.connection.sendNotification('session/cancel', { sessionId });
    await a.until((u) => turnsEnded(u, sessionId));
    expect(withdrawn).toHaveLength(1);
    expect(a.of(sessionId).at(-1)).toMatchObject({ state: 'idle', stopReason: 'cancelled' });
  });
});

describe('auth/login and auth/logout', () => {
  it('advertises the methods; with --require-login session methods get -32000 until a login succeeds', async () => {
    const a = await agent(['--require-login']);
    const init = await a.connection.sendRequest('initialize', {
      protocolVersion: 2,
      info: { name: 'again', version: '0' },
    });
    expect(init.authMethods).toEqual([{ type: 'agent', methodId: 'token', name: 'Token' }]);
    expect(init.capabilities?.auth).toEqual({});
    for (const [method, params] of [
      ['session/new', { cwd: '/repo' }],
      ['session/list', {}],
      ['session/resume', { sessionId: 'sess_x', cwd: '/repo' }],
      ['session/prompt', { sessionId: 'sess_x', prompt: [{ type: 'text', text: 'hi' }] }],
      ['session/close', { sessionId: 'sess_x' }],
    ] as const) {
      expect(await errorOf(a.connection.sendRequest(method, params as never))).toMatchObject({
        code: -32000,
      });
    }
    expect(await errorOf(a.connection.sendRequest('auth/login', { methodId: 'oauth' }))).toMatchObject({
      code: -32602,
      data: { pointer: '/params/methodId', expected: 'one of "token"' },
    });
    expect(await errorOf(a.connection.sendRequest('auth/login', {} as never))).toMatchObject({
      code: -32602,
      data: { pointer: '/params/methodId' },
    });
    expect(
      await errorOf(
        a.connection.sendRequest('auth/login', { methodId: 'token', _meta: { password: 'guess' } }),
      ),
    ).toMatchObject({ code: -32000, message: 'wrong password' });
    expect(await errorOf(a.connection.sendRequest('session/new', { cwd: '/repo' }))).toMatchObject({
      code: -32000,
    });

    expect(
      await a.connection.sendRequest('auth/login', { methodId: 'token', _meta: { password: 'open sesame' } }),
    ).toEqual({});
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    expect(await a.connection.sendRequest('auth/logout', {})).toEqual({});
    expect(await errorOf(a.connection.sendRequest('session/list', {}))).toMatchObject({ code: -32000 });
    await a.connection.sendRequest('auth/login', { methodId: 'token', _meta: { password: 'open sesame' } });
    expect((await a.connection.sendRequest('session/list', {})).sessions.map((s) => s.sessionId)).toEqual([
      sessionId,
    ]);
  });

  it('after auth/logout refuses session/new, prompts and resume with -32000 again, until the next login', async () => {
    const a = await agent(['--require-login']);
    const login = () =>
      a.connection.sendRequest('auth/login', { methodId: 'token', _meta: { password: 'open sesame' } });
    await login();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
    await a.until((u) => turnsEnded(u, sessionId));

    expect(await a.connection.sendRequest('auth/logout', {})).toEqual({});
    const refused = await errorOf(a.connection.sendRequest('session/new', { cwd: '/repo' }));
    expect(refused).toMatchObject({ code: -32000 });
    expect(refused.message).toMatch(/auth\/login before session\/new/);
    for (const [method, params] of [
      ['session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] }],
      ['session/resume', { sessionId, cwd: '/repo' }],
      ['session/set_config_option', { type: 'id', sessionId, configId: 'mode', value: 'code' }],
    ] as const) {
      expect(await errorOf(a.connection.sendRequest(method, params as never)), method).toMatchObject({
        code: -32000,
      });
    }
    // Logging out twice is harmless; the refused prompt was never inserted.
    expect(await a.connection.sendRequest('auth/logout', {})).toEqual({});
    await login();
    await a.connection.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'three' }],
    });
    await a.until((u) => turnsEnded(u, sessionId, 2));
    const said = a
      .of(sessionId)
      .filter((u) => u.sessionUpdate === 'user_message')
      .map((u) => JSON.stringify(u));
    expect(said).toHaveLength(2);
    expect(said.some((u) => u.includes('"two"'))).toBe(false);
  });

  it('with login optional, auth/logout leaves the session methods served', async () => {
    const a = await agent(['--auth']);
    await a.connection.sendRequest('session/new', { cwd: '/repo' });
    await a.connection.sendRequest('auth/login', { methodId: 'token', _meta: { password: 'open sesame' } });
    expect(await a.connection.sendRequest('auth/logout', {})).toEqual({});
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    expect((await a.connection.sendRequest('session/list', {})).sessions.map((s) => s.sessionId)).toContain(
      sessionId,
    );
  });

  it('answers auth/login -32601 when the agent advertises no methods', async () => {
    const a = await agent();
    expect(await errorOf(a.connection.sendRequest('auth/login', { methodId: 'token' }))).toMatchObject({
      code: -32601,
    });
    const init = await a.connection.sendRequest('initialize', {
      protocolVersion: 2,
      info: { name: 'x', version: '0' },
    });
    expect(init.authMethods).toBeUndefined();
  });
});
