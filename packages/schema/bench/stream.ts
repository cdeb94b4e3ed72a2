/**
 * A realistic ndjson stream from agent to client: turns of session/update notifications of every
 * kind (mostly agent_message_chunk, as when a reply streams) and the prompt responses between them.
 */

const SESSION = 'sess_bench';

function notification(update: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SESSION, update } });
}

function text(t: string): Record<string, unknown> {
  return { type: 'text', text: t };
}

const WORDS =
  'the agent reads the file then edits the function and runs the tests again until they pass'.split(' ');

function words(seed: number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i += 1) out += `${WORDS[(seed * 7 + i * 3) % WORDS.length]} `;
  return out;
}

function turn(n: number): string[] {
  const user = `msg_user_${n}`;
  const agent = `msg_agent_${n}`;
  const thought = `msg_thought_${n}`;
  const tool = `call_${n}`;
  const lines = [
    notification({ sessionUpdate: 'user_message', messageId: user, content: [text(`Please fix bug #${n}`)] }),
    JSON.stringify({ jsonrpc: '2.0', id: n, result: { messageId: user } }),
    notification({ sessionUpdate: 'state_update', state: 'running' }),
  ];
  for (let i = 0; i < 4; i += 1) {
    lines.push(
      notification({
        sessionUpdate: 'agent_thought_chunk',
        messageId: thought,
        content: text(words(n + i, 6)),
      }),
    );
  }
  lines.push(
    notification({
      sessionUpdate: 'tool_call_update',
      toolCallId: tool,
      title: 'Read src/index.ts',
      kind: 'read',
      status: 'in_progress',
      locations: [{ path: '/repo/src/index.ts', line: 12 }],
    }),
    notification({
      sessionUpdate: 'tool_call_update',
      toolCallId: tool,
      status: 'completed',
      content: [{ type: 'content', content: text('42 lines') }],
    }),
    notification({
      sessionUpdate: 'plan_update',
      plan: {
        type: 'items',
        planId: `plan_${n}`,
        entries: [
          { content: 'Find the bug', priority: 'high', status: 'completed' },
          { content: 'Fix it', priority: 'medium', status: 'in_progress' },
        ],
      },
    }),
  );
  for (let i = 0; i < 26; i += 1) {
    lines.push(
      notification({
        sessionUpdate: 'agent_message_chunk',
        messageId: agent,
        content: text(words(n * 31 + i, 4)),
      }),
    );
  }
  lines.push(
    notification({ sessionUpdate: 'agent_message', messageId: agent, _meta: { final: true } }),
    notification({ sessionUpdate: 'usage_update', used: 1200 + n, size: 200000 }),
    notification({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }),
  );
  return lines;
}

/** About `target` lines of agent → client traffic, the same on every run. */
export function buildStream(target = 1400): string[] {
  const lines: string[] = [];
  for (let n = 1; lines.length < target; n += 1) lines.push(...turn(n));
  return lines.slice(0, target);
}
