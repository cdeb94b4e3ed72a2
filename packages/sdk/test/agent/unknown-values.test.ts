import type { ContentBlock, SessionUpdate } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { updates, wire } from './harness.js';

const info = { name: 'test-agent', version: '0.0.0' };

/** A content block of a type later ACP versions may define; this schema does not know it. */
const video = {
  type: 'video',
  uri: 'file:///work/demo.mp4',
  mimeType: 'video/mp4',
} as unknown as ContentBlock;

/**
 * Issue #10: values a v2 peer is entitled to send (unknown enum values and union variants) pass
 * the agent's and the client's validation over a real connection, and the client's store keeps
 * them as they were sent.
 */
describe('unknown enum values and union variants end to end', () => {
  it('inserts a prompt with an unknown content type and keeps unknown tool kinds and diff operations', async () => {
    const agent = new Agent({
      info,
      onPrompt: async (prompt, { session }) => {
        await prompt.insert();
        await session.running();
        await session.update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call_1',
          title: 'Open the changelog',
          kind: 'browse',
          status: 'in_progress',
          content: [
            {
              type: 'diff',
              changes: [{ operation: 'copy', oldPath: '/work/a.ts', path: '/work/b.ts' }],
            },
          ],
        } as unknown as SessionUpdate);
        const reply = await session.agentMessage();
        await reply.chunk(video);
        await session.idle('end_turn');
      },
    });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/work');
    const messageId = await w.client.prompt(sessionId, [{ type: 'text', text: 'watch this' }, video]);
    expect(typeof messageId).toBe('string');
    await w.until((r) => updates(r, 'state_update').some((u) => 'state' in u && u.state === 'idle'));

    const snapshot = w.client.store.snapshot(sessionId);
    const user = snapshot.messages.find((m) => m.kind === 'user_message');
    expect(user?.content).toEqual([{ type: 'text', text: 'watch this' }, video]);
    const reply = snapshot.messages.find((m) => m.kind === 'agent_message');
    expect(reply?.content).toEqual([video]);
    expect(snapshot.toolCalls[0]?.fields).toMatchObject({
      kind: 'browse',
      content: [
        { type: 'diff', changes: [{ operation: 'copy', oldPath: '/work/a.ts', path: '/work/b.ts' }] },
      ],
    });
    expect(w.received.filter((r) => r.type === 'response' && r.error !== undefined)).toEqual([]);
  });
});
