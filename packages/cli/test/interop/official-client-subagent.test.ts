/**
 * #29, subagents: the official SDK's experimental v2 client (its unstable entry) runs `/subagent`
 * on the real `acp-kit agent` process over stdio with SQLite history. The parent announces the child
 * with `subagent_update` before anything bears the child's ID; the child's own turn reaches the
 * client under the child's ID with no resume; its state is mirrored on the parent; a prompt to the
 * child is refused -32602; after a restart on the same file, a resume of the parent with replay
 * replays the child's history after the parent's. Every notification parses with the official
 * unstable zod schema, and the official client reports nothing on console.error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { client as officialClient } from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import {
  type AgentProcess,
  OFFICIAL_INITIALIZE,
  spawnAgentProcess,
  type WireMessage,
} from './agent-process.js';

beforeAll(requireBuild);
const running: AgentProcess[] = [];
let dir = '';
afterEach(async () => {
  for (const agent of running.splice(0)) await agent.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

type Update = {
  sessionUpdate: string;
  sessionId?: string;
  state?: unknown;
  stopReason?: string;
  messageId?: string;
};
type Notification = { sessionId: string; update: Update };

async function officialUnstable(): Promise<
  Record<string, { safeParse(value: unknown): { success: boolean } }>
> {
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/experimental/v2');
  return import(pathToFileURL(join(dirname(entry), '..', 'unstable', 'schema', 'zod.gen.js')).href);
}

const notifications = (wire: readonly WireMessage[]): Notification[] =>
  wire.filter((m) => m.method === 'session/update').map((m) => m.params as Notification);

async function until(agent: AgentProcess, test: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !test(); waited += 20) {
    if (waited > 60_000) throw new Error(`timed out waiting for ${what}\n${agent.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the official v2 client running a subagent of acp-kit agent', () => {
  it('sees the child announced first, its turn under its own ID, its state mirrored, and its history replayed after a restart', async () => {
    const zod = await officialUnstable();
    const errors = vi.spyOn(console, 'error');
    dir = mkdtempSync(join(tmpdir(), 'acp-kit-subagent-'));
    const db = join(dir, 'history.db');
    const first = spawnAgentProcess(0, ['--unstable', '--history', db]);
    running.push(first);
    const parentEnded = (sessionId: string) => () =>
      notifications(first.wire).some(
        (n) =>
          n.sessionId === sessionId &&
          n.update.sessionUpdate === 'state_update' &&
          n.update.stopReason !== undefined,
      );

    const live = await officialClient({ name: 'interop-official-subagent' }).connectWith(
      first.stream,
      async (ctx) => {
        await ctx.request('initialize', OFFICIAL_INITIALIZE);
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: '/subagent review the diff' }],
        });
        await until(first, parentEnded(sessionId), 'the parent’s turn to end');
        const announcement = notifications(first.wire).find(
          (n) => n.update.sessionUpdate === 'subagent_update',
        )!;
        const childId = announcement.update.sessionId!;
        const refused = await ctx
          .request('session/prompt', { sessionId: childId, prompt: [{ type: 'text', text: 'hi' }] })
          .then(
            () => undefined,
            (error: unknown) => error as { code?: number; message?: string },
          );
        return { sessionId, childId, refused };
      },
    );

    const wire = notifications(first.wire);
    const announcedAt = wire.findIndex((n) => n.update.sessionUpdate === 'subagent_update');
    expect(wire[announcedAt]).toMatchObject({
      sessionId: live.sessionId,
      update: { title: 'Subagent: review the diff', capabilities: { cancel: {} } },
    });
    expect(wire.findIndex((n) => n.sessionId === live.childId)).toBeGreaterThan(announcedAt);
    const childUpdates = wire.filter((n) => n.sessionId === live.childId).map((n) => n.update);
    expect(childUpdates.map((u) => [u.sessionUpdate, u.state ?? null, u.stopReason ?? null])).toEqual([
      // The task, handed over as a session message (streamed in, then given the parent's ID).
      ['session_message', null, null],
      ['session_message_chunk', null, null],
      ['session_message', null, null],
      ['state_update', 'running', null],
      ['agent_message_chunk', null, null],
      ['agent_message_chunk', null, null],
      ['agent_message_chunk', null, null],
      ['state_update', 'idle', 'end_turn'],
    ]);
    // Each transcript's copy of the hand-over names the other's session and message.
    const sent = wire.find(
      (n) => n.sessionId === live.sessionId && n.update.sessionUpdate === 'session_message',
    )!.update as Record<string, unknown>;
    const received = childUpdates.filter((u) => u.sessionUpdate === 'session_message') as Record<
      string,
      unknown
    >[];
    expect(sent).toMatchObject({
      recipientSessionId: live.childId,
      recipientMessageId: received[0]!.messageId,
      content: [{ type: 'text', text: 'Please work on: review the diff' }],
    });
    expect(received[0]).toMatchObject({ senderSessionId: live.sessionId, content: [] });
    expect(received[1]).toMatchObject({ messageId: received[0]!.messageId, senderMessageId: sent.messageId });
    const mirrored = wire
      .filter((n) => n.sessionId === live.sessionId && n.update.sessionUpdate === 'subagent_update')
      .map((n) => (n.update.state as { state?: string } | undefined)?.state ?? null);
    expect(mirrored).toEqual([null, 'running', 'idle']);
    expect(live.refused?.code).toBe(-32602);
    expect(live.refused?.message).toContain(`subagent of ${live.sessionId}`);
    await first.stop();

    // A new process on the same SQLite file: resume the parent with replay.
    const second = spawnAgentProcess(0, ['--unstable', '--history', db]);
    running.push(second);
    await officialClient({ name: 'interop-official-subagent-2' }).connectWith(second.stream, async (ctx) => {
      await ctx.request('initialize', OFFICIAL_INITIALIZE);
      await ctx.request('session/resume', {
        sessionId: live.sessionId,
        cwd: '/tmp',
        replayFrom: { type: 'start' },
      });
    });
    const replayed = notifications(second.wire);
    const replayedAnnouncement = replayed.findIndex(
      (n) => n.update.sessionUpdate === 'subagent_update' && n.update.sessionId === live.childId,
    );
    const firstChildReplayed = replayed.findIndex((n) => n.sessionId === live.childId);
    expect(replayedAnnouncement).toBeGreaterThanOrEqual(0);
    expect(firstChildReplayed).toBeGreaterThan(replayedAnnouncement);
    const childMessages = replayed.filter(
      (n) => n.sessionId === live.childId && n.update.sessionUpdate === 'agent_message',
    );
    expect(childMessages).toHaveLength(1);
    // The child's replayed message keeps its ID.
    const liveChildMessageIds = new Set(childUpdates.map((u) => u.messageId).filter(Boolean));
    expect(liveChildMessageIds.has(childMessages[0]!.update.messageId)).toBe(true);

    const rejected = [...wire, ...replayed].filter(
      (n) => !zod.zUpdateSessionNotification!.safeParse(n).success,
    );
    expect(rejected).toEqual([]);
    expect(errors.mock.calls).toEqual([]);
  });
});
