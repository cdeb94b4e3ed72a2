/**
 * A pre-serialized agent → client ndjson stream of `session/update` notifications, the same bytes on
 * every run: turns of one user_message, running, tool_call_updates, mostly agent_message_chunks and
 * idle/end_turn.
 */

/** The session every update in the stream belongs to. */
export const BENCH_SESSION = 'sess_bench';

const WORDS = 'the agent reads the file then edits the function and runs the tests again'.split(' ');

function line(update: Record<string, unknown>): string {
  return `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: BENCH_SESSION, update } })}\n`;
}

function turn(n: number): string[] {
  const agent = `msg_agent_${n}`;
  const tool = `call_${n}`;
  const chunk = (i: number): string =>
    line({
      sessionUpdate: 'agent_message_chunk',
      messageId: agent,
      content: { type: 'text', text: `${WORDS[(n + i) % WORDS.length]} ` },
    });
  const out = [
    line({
      sessionUpdate: 'user_message',
      messageId: `msg_user_${n}`,
      content: [{ type: 'text', text: `Please fix bug #${n} in src/index.ts` }],
    }),
    line({ sessionUpdate: 'state_update', state: 'running' }),
    line({
      sessionUpdate: 'tool_call_update',
      toolCallId: tool,
      title: 'Read src/index.ts',
      kind: 'read',
      status: 'in_progress',
      locations: [{ path: '/repo/src/index.ts', line: 12 }],
    }),
  ];
  for (let i = 0; i < 40; i += 1) out.push(chunk(i));
  out.push(
    line({
      sessionUpdate: 'tool_call_update',
      toolCallId: tool,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: '42 lines' } }],
    }),
  );
  for (let i = 40; i < 80; i += 1) out.push(chunk(i));
  out.push(line({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }));
  return out;
}

/** Exactly `count` update lines (the last turn may be cut short), encoded as UTF-8 chunks of `chunkBytes`. */
export function buildUpdateStream(
  count: number,
  chunkBytes = 64 * 1024,
): { chunks: Buffer[]; bytes: number } {
  const lines: string[] = [];
  for (let n = 1; lines.length < count; n += 1) lines.push(...turn(n));
  const all = Buffer.from(lines.slice(0, count).join(''), 'utf8');
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += chunkBytes) chunks.push(all.subarray(at, at + chunkBytes));
  return { chunks, bytes: all.length };
}
