/**
 * Version negotiation over a real process: the official SDK's v1 client (its default, v1 entry)
 * talks directly to `acp-kit agent` over stdio — no bridge process. The agent's `initialize`
 * handling sees `protocolVersion: 1` and serves the connection through the in-process v1 codec.
 * Every line the agent writes is also captured raw and checked against our v1 schema, so a v2
 * shape leaking onto a v1 connection fails the test even where the official client is lenient.
 */
import { type ActiveSessionMessage, client as officialV1Client } from '@agentclientprotocol/sdk';
import { v1Validation } from '@acp-kit/v1-compat';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replyTo } from '../../src/agent/reply-model.js';
import { requireBuild } from '../harness.js';
import { type AgentProcess, spawnAgentProcess, type WireMessage } from './agent-process.js';

let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

beforeAll(requireBuild);

/** Spawns `acp-kit agent`, logs every line it writes, and gives the official client its own copy. */
function spawnAgent(chunkDelay = 0): AgentProcess {
  running = spawnAgentProcess(chunkDelay);
  return running;
}

/** Every notification and request the agent wrote is valid v1 (our generated v1 validators). */
function expectAllV1(wire: WireMessage[]): void {
  for (const message of wire) {
    if (message.method === undefined) continue;
    const checked = v1Validation.validateParams(message.method, message.params);
    expect(checked, `${message.method} is a v1 method`).toBeDefined();
    expect(checked?.ok ? [] : checked?.issues, JSON.stringify(message)).toEqual([]);
  }
  const kinds = wire
    .filter((m) => m.method === 'session/update')
    .map((m) => (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate);
  expect(kinds).not.toContain('state_update');
  expect(kinds).not.toContain('agent_message');
  expect(kinds).not.toContain('user_message');
}

describe('the official v1 client talking directly to `acp-kit agent` (negotiated down to v1)', () => {
  it('completes whole turns: v1 initialize, session/new, a prompt answered {stopReason} at the end of the turn, a permission round trip', async () => {
    const agent = spawnAgent();
    const permissions: unknown[] = [];
    const app = officialV1Client({ name: 'official-v1-interop' }).onRequest(
      'session/request_permission',
      async ({ params }) => {
        permissions.push(params);
        const allow = params.options.find((option) => option.kind.startsWith('allow')) ?? params.options[0]!;
        return { outcome: { outcome: 'selected', optionId: allow.optionId } };
      },
    );
    const outcome = await app.connectWith(agent.stream, async (ctx) => {
      const init = await ctx.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: 'official-v1', version: '2.4.0' },
      });
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt('hello from a v1 editor');
      const text = await session.readText();
      const write = await session.prompt('/write notes.txt');
      const seen: ActiveSessionMessage[] = [];
      for (;;) {
        const message = await session.nextUpdate();
        seen.push(message);
        if (message.kind === 'stop') break;
      }
      session.dispose();
      return { init, response, text, write, seen, sessionId: session.sessionId };
    });

    expect(outcome.init).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: 'acp-kit-agent' },
      agentCapabilities: { loadSession: true },
    });
    // The idle that ended the turn carried usage: the v1 answer has it (v1's unstable usage field).
    const reply = replyTo('hello from a v1 editor');
    expect(outcome.response).toEqual({
      stopReason: 'end_turn',
      usage: {
        totalTokens: reply.inputTokens + reply.pieces.length,
        inputTokens: reply.inputTokens,
        outputTokens: reply.pieces.length,
      },
    });
    expect(outcome.text).toBe(reply.pieces.join(''));
    expect(outcome.write).toEqual({ stopReason: 'end_turn' });
    expect(permissions).toHaveLength(1);
    expect(permissions[0]).toMatchObject({ sessionId: outcome.sessionId, toolCall: {} });
    // The v1 client's own prompts are not echoed back to it; the agent's reply arrives as v1 chunks.
    const updates = outcome.seen.flatMap((m) => (m.kind === 'session_update' ? [m.update] : []));
    expect(updates.some((u) => u.sessionUpdate === 'agent_message_chunk')).toBe(true);
    expect(updates.some((u) => u.sessionUpdate === 'user_message_chunk')).toBe(false);
    expectAllV1(agent.wire);
    // Both prompt answers went out only after the turn's last update.
    const promptAnswers = agent.wire.filter(
      (m) => m.result !== undefined && (m.result as { stopReason?: unknown }).stopReason !== undefined,
    );
    expect(promptAnswers).toHaveLength(2);
    const lastIndex = agent.wire.indexOf(promptAnswers[1]!);
    expect(agent.wire.slice(lastIndex + 1).filter((m) => m.method === 'session/update')).toEqual([]);
    expect(agent.stderr()).toBe('');
  });

  it('cancels a running turn: the v1 prompt ends with stopReason cancelled', async () => {
    const agent = spawnAgent(40);
    const outcome = await officialV1Client({ name: 'official-v1-cancel' }).connectWith(
      agent.stream,
      async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const session = await ctx.buildSession('/tmp').start();
        const answer = session.prompt(`${'a long prompt '.repeat(40)}`);
        // The session's commands and modes (v1 shape) may come first; the turn's first update follows.
        const settings = ['available_commands_update', 'current_mode_update', 'config_option_update'];
        let first = await session.nextUpdate();
        while (first.kind === 'session_update' && settings.includes(first.update.sessionUpdate))
          first = await session.nextUpdate();
        await ctx.notify('session/cancel', { sessionId: session.sessionId });
        const response = await answer;
        session.dispose();
        return { first, response };
      },
    );
    expect(outcome.first).toMatchObject({
      kind: 'session_update',
      update: { sessionUpdate: 'agent_message_chunk' },
    });
    // Cancelled mid-stream: the usage counts only the chunks written before the cancel.
    expect(outcome.response).toMatchObject({
      stopReason: 'cancelled',
      usage: { totalTokens: expect.any(Number) },
    });
    const usage = (outcome.response as { usage?: { outputTokens: number } }).usage;
    expect(usage?.outputTokens).toBeLessThan(replyTo('a long prompt '.repeat(40)).pieces.length);
    expectAllV1(agent.wire);
  });

  it('reloads a session with v1 session/load: the conversation replays as v1 chunks, the user message included', async () => {
    const agent = spawnAgent();
    const replayed: { sessionUpdate: string; content?: unknown }[] = [];
    let loading = false;
    const app = officialV1Client({ name: 'official-v1-load' }).onNotification(
      'session/update',
      ({ params }) => {
        if (loading) replayed.push(params.update as never);
      },
    );
    const outcome = await app.connectWith(agent.stream, async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.buildSession('/tmp').start();
      await session.prompt('remember me');
      session.dispose();
      loading = true;
      const loaded = await ctx.request('session/load', {
        sessionId: session.sessionId,
        cwd: '/tmp',
        mcpServers: [],
      });
      return { loaded };
    });
    // The reference agent's mode option reaches the v1 client as its session modes.
    expect(outcome.loaded).toMatchObject({
      modes: {
        currentModeId: 'code',
        availableModes: [expect.objectContaining({ id: 'code' }), expect.objectContaining({ id: 'ask' })],
      },
    });
    expect(Object.keys(outcome.loaded as object).sort()).toEqual(['configOptions', 'modes']);
    expect(replayed.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content)).toEqual([
      { type: 'text', text: 'remember me' },
    ]);
    expect(
      replayed
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => (u.content as { text: string }).text)
        .join(''),
    ).toBe(replyTo('remember me').pieces.join(''));
    expectAllV1(agent.wire);
  });
});
