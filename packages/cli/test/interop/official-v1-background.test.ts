/**
 * #30 item 4 over the real `acp-kit agent` process spoken to as v1: the official SDK's v1 client
 * sends `/background 1`, gets its prompt answered `end_turn` at once, and then — outside any turn —
 * the terminal that keeps running as a v1 `execute` tool call (`terminal-<terminalId>`) whose
 * content grows with the output and which ends `completed` at its exit. Every line the agent
 * writes is valid v1; the background list, which v1 cannot carry, is logged as lost on stderr.
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

type V1Update = {
  sessionUpdate: string;
  toolCallId?: string;
  kind?: string;
  status?: string;
  content?: { type: string; content?: { text?: string } }[];
};

describe('the official v1 client and `acp-kit agent` background work (negotiated down to v1)', () => {
  it('answers /background 1 at once, then shows the running terminal as a v1 execute tool call that ends completed', async () => {
    const agent = spawnAgentProcess();
    running = agent;
    const updates: V1Update[] = [];
    let answeredAfter = -1;
    const app = officialV1Client({ name: 'official-v1-background' }).onNotification(
      'session/update',
      ({ params }) => {
        updates.push(params.update as V1Update);
      },
    );
    const answer = await app.connectWith(agent.stream, async (ctx) => {
      await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.buildSession('/tmp').start();
      const answered = await session.prompt('/background 1');
      answeredAfter = updates.length;
      const deadline = Date.now() + 30_000;
      while (!updates.some((u) => u.toolCallId?.startsWith('terminal-') && u.status === 'completed')) {
        if (Date.now() > deadline)
          throw new Error(`no completed terminal tool call: ${JSON.stringify(updates)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      session.dispose();
      return answered;
    });

    expect(answer).toEqual({ stopReason: 'end_turn' });
    // Before the answer: the turn's reply, and nothing of the terminal yet.
    const before = updates.slice(0, answeredAfter);
    expect(before.map((u) => u.sessionUpdate)).toContain('agent_message_chunk');
    expect(before.some((u) => u.toolCallId?.startsWith('terminal-'))).toBe(false);
    // After it: one tool call for the terminal, announced once, its output growing, then completed.
    const terminal = updates.slice(answeredAfter).filter((u) => u.toolCallId?.startsWith('terminal-'));
    expect(terminal[0]).toMatchObject({ sessionUpdate: 'tool_call', kind: 'execute', title: 'sleep 1' });
    expect(terminal.slice(1).every((u) => u.sessionUpdate === 'tool_call_update')).toBe(true);
    expect(new Set(terminal.map((u) => u.toolCallId)).size).toBe(1);
    const texts = terminal.map((u) => u.content?.[0]?.content?.text ?? '');
    expect(texts.at(-1)).toMatch(/^tick 1\n(tick \d+\n)+$/);
    for (let i = 1; i < texts.length; i++) expect(texts[i]!.startsWith(texts[i - 1]!)).toBe(true);
    expect(terminal.at(-1)?.status).toBe('completed');

    for (const message of agent.wire) {
      if (message.method === undefined) continue;
      const checked = v1Validation.validateParams(message.method, message.params);
      expect(checked?.ok ? [] : checked?.issues, JSON.stringify(message)).toEqual([]);
    }
    const lost = agent.stderr().split('\n');
    expect(
      lost.some((line) =>
        /left out state_update \/background for session sess_\S+: v1 has no background list/.test(line),
      ),
    ).toBe(true);
  });
});
