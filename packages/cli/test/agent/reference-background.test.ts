/**
 * #30 item 3 over the real `acp-kit agent` process on stdio: `/background <seconds>` and
 * `/subtask <text>` keep working after the turn ended idle (listed, announced first, ended before
 * they leave the list), and `--greet` sends an agent message on session/new before any prompt.
 */
import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess, clientOver, requireBuild } from '../harness.js';

beforeAll(requireBuild);
const TIMEOUT = 60_000;
type Update = SessionNotification['update'];
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function started(args: string[]) {
  const transport = agentProcess(args);
  stops.push(() => transport.shutdown());
  return clientOver(transport);
}

const listOf = (u: Update): unknown[] | undefined =>
  u.sessionUpdate === 'state_update'
    ? ((u as { background?: unknown[] }).background ?? undefined)
    : undefined;

describe('acp-kit agent: background work and agent-initiated updates', () => {
  it(
    '/background 1 ends the turn idle while its terminal keeps writing, then reports the exit status before the list drops it',
    async () => {
      const t = await started(['--chunk-delay', '1']);
      const { sessionId } = await t.client.createSession({ cwd: '/repo' });
      const end = await t.client.promptToEnd(sessionId, [text('/background 1')]);
      expect(end.stopReason).toBe('end_turn');
      const idleAt = t.updates().findIndex((u) => u.sessionUpdate === 'state_update' && 'stopReason' in u);
      await t.until(() => t.updates().some((u) => listOf(u)?.length === 0));
      const all = t.updates();
      const terminalId = (all.find((u) => u.sessionUpdate === 'terminal_update') as { terminalId: string })
        .terminalId;
      const announced = all.findIndex((u) => u.sessionUpdate === 'terminal_update');
      const firstListed = all.findIndex((u) => (listOf(u)?.length ?? 0) > 0);
      const exited = all.findIndex((u) => (u as { exitStatus?: unknown }).exitStatus != null);
      const dropped = all.findIndex((u) => listOf(u)?.length === 0);
      expect(announced).toBeLessThan(firstListed);
      expect(listOf(all[firstListed]!)).toEqual([{ type: 'terminal', terminalId }]);
      // Output after the turn's idle: the terminal outlived the turn.
      expect(all.slice(idleAt + 1).some((u) => u.sessionUpdate === 'terminal_output_chunk')).toBe(true);
      expect(exited).toBeGreaterThan(idleAt);
      expect(dropped).toBeGreaterThan(exited);
      expect(all[dropped]).toEqual({ sessionUpdate: 'state_update', state: 'idle', background: [] });
    },
    TIMEOUT,
  );

  it(
    '/subtask lists a background tool call until its completed status',
    async () => {
      const t = await started(['--chunk-delay', '1']);
      const { sessionId } = await t.client.createSession({ cwd: '/repo' });
      expect((await t.client.promptToEnd(sessionId, [text('/subtask tidy up')])).stopReason).toBe('end_turn');
      await t.until(() => t.updates().some((u) => listOf(u)?.length === 0));
      const all = t.updates();
      const listed = all.find((u) => (listOf(u)?.length ?? 0) > 0)!;
      expect(listOf(listed)).toEqual([{ type: 'tool_call', toolCallId: expect.any(String) }]);
      const completed = all.findIndex((u) => (u as { status?: unknown }).status === 'completed');
      expect(completed).toBeGreaterThan(0);
      expect(all.findIndex((u) => listOf(u)?.length === 0)).toBeGreaterThan(completed);
    },
    TIMEOUT,
  );

  it(
    '--greet sends an agent message on session/new before any prompt, without a turn',
    async () => {
      const t = await started(['--greet']);
      await t.client.createSession({ cwd: '/repo' });
      await t.until(() => t.updates().some((u) => u.sessionUpdate === 'agent_message'));
      const kinds = t.updates().map((u) => u.sessionUpdate);
      expect(kinds).toContain('agent_message');
      expect(kinds).not.toContain('state_update');
    },
    TIMEOUT,
  );
});
