/**
 * `/compact` over the real `acp-kit agent` process: the command is advertised, the client sees the
 * compaction live (in_progress, a summary derived from the session's retained messages in chunks,
 * completed — or cancelled by `session/cancel`), the turn ends idle/end_turn, and after the agent
 * restarts on the same SQLite file `session/resume` with replay shows it under the same compactionId.
 */
import { join } from 'node:path';
import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess, clientOver, isState, requireBuild, type TestClient, tempDir } from '../harness.js';

beforeAll(requireBuild);
const temp = tempDir();
afterAll(() => temp.cleanup());

const TIMEOUT = 60_000;
type Update = SessionNotification['update'];
const text = (t: string): ContentBlock => ({ type: 'text', text: t });

async function started(args: string[]) {
  const transport = agentProcess(args);
  const t = await clientOver(transport);
  return { t, stop: () => transport.shutdown() };
}

const compactionUpdates = (t: TestClient): Update[] =>
  t.updates().filter((u) => u.sessionUpdate.startsWith('compaction_'));
const idOf = (u: Update | undefined): string => (u as { compactionId: string }).compactionId;

describe('acp-kit agent: /compact', () => {
  it(
    'is advertised, and reports a compaction live: in_progress, a summary of the retained messages in chunks, completed, then idle/end_turn',
    async () => {
      const { t, stop } = await started(['--chunk-delay', '1']);
      const created = await t.client.createSession({ cwd: '/repo' });
      const { sessionId } = created;
      expect(created.availableCommands).toContainEqual(expect.objectContaining({ name: 'compact' }));
      for (const prompt of ['hello world', '/note buy milk', '/status']) {
        expect((await t.client.promptToEnd(sessionId, [text(prompt)])).stopReason).toBe('end_turn');
      }
      const before = t.updates().length;
      expect((await t.client.promptToEnd(sessionId, [text('/compact')])).stopReason).toBe('end_turn');

      const turn = t.updates().slice(before);
      const compactionId = idOf(turn.find((u) => u.sessionUpdate === 'compaction_update'));
      expect(compactionId).toMatch(/^compact_/);
      // The turn as the client saw it arrive: the prompt inserted, running, the compaction, idle.
      expect(
        turn.map((u) =>
          u.sessionUpdate === 'state_update' ? `state:${(u as { state: string }).state}` : u.sessionUpdate,
        ),
      ).toEqual([
        'user_message',
        'state:running',
        'compaction_update',
        'compaction_summary_chunk',
        'compaction_summary_chunk',
        'compaction_summary_chunk',
        'compaction_summary_chunk',
        'compaction_update',
        'state:idle',
      ]);
      expect(turn.at(-1)).toMatchObject({ stopReason: 'end_turn' });
      // /status is live-only and the /compact prompt itself is not summarized.
      expect(turn.filter((u) => u.sessionUpdate.startsWith('compaction_'))).toEqual([
        { sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' },
        {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId,
          content: text('Summary of 4 earlier messages (2 from the user, 2 from the agent).'),
        },
        {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId,
          content: text('\n- The user wrote: hello world'),
        },
        {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId,
          content: text('\n- The user wrote: /note buy milk'),
        },
        {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId,
          content: text('\n- The agent last replied: Noted (1).'),
        },
        { sessionUpdate: 'compaction_update', compactionId, status: 'completed' },
      ]);
      const [held] = t.client.store.snapshot(sessionId).compactions;
      expect(held?.compactionId).toBe(compactionId);
      expect(held?.fields).toEqual({ status: 'completed' });
      expect(held?.summary?.map((b) => (b as { text: string }).text).join('')).toBe(
        'Summary of 4 earlier messages (2 from the user, 2 from the agent).\n- The user wrote: hello world\n- The user wrote: /note buy milk\n- The agent last replied: Noted (1).',
      );
      await stop();
    },
    TIMEOUT,
  );

  it(
    'reports the compaction cancelled when session/cancel arrives while the summary streams',
    async () => {
      const { t, stop } = await started(['--chunk-delay', '5000']);
      const sessionId = await t.client.newSession('/repo');
      const turn = t.client.submit(sessionId, [text('/compact')]);
      await t.until(() => t.updates().some((u) => u.sessionUpdate === 'compaction_summary_chunk'));
      await t.client.cancel(sessionId);
      expect((await turn.turnEnd).stopReason).toBe('cancelled');
      const updates = compactionUpdates(t);
      expect(updates.map((u) => u.sessionUpdate)).toEqual([
        'compaction_update',
        'compaction_summary_chunk',
        'compaction_update',
      ]);
      expect(updates[1]).toMatchObject({
        content: text('Nothing to compact: the session has no earlier messages.'),
      });
      expect(updates.at(-1)).toEqual({
        sessionUpdate: 'compaction_update',
        compactionId: idOf(updates[0]),
        status: 'cancelled',
      });
      await stop();
    },
    TIMEOUT,
  );

  it(
    'replays the compaction under the same compactionId after a restart on the same SQLite file, and a later /compact summarizes the history kept there',
    async () => {
      const db = join(temp.dir, 'compact.db');
      const first = await started(['--history', db, '--chunk-delay', '1']);
      const sessionId = await first.t.client.newSession('/repo');
      await first.t.client.promptToEnd(sessionId, [text('plan the release')]);
      await first.t.client.promptToEnd(sessionId, [text('/compact')]);
      const live = compactionUpdates(first.t);
      expect(live.map((u) => u.sessionUpdate)).toEqual([
        'compaction_update',
        'compaction_summary_chunk',
        'compaction_summary_chunk',
        'compaction_summary_chunk',
        'compaction_update',
      ]);
      expect(live.at(-1)).toMatchObject({ status: 'completed' });
      const compactionId = idOf(live[0]);
      await first.stop();

      const second = await started(['--history', db, '--chunk-delay', '1']);
      await second.t.client.resume(sessionId, { cwd: '/repo', replay: true });
      const replayed = compactionUpdates(second.t);
      // The same updates under the same ID; the first one clears the summary its chunks append to.
      expect(replayed).toEqual(live.map((u, i) => (i === 0 ? { ...u, summary: null } : u)));
      expect(second.t.client.store.snapshot(sessionId).compactions).toEqual([
        expect.objectContaining({
          compactionId,
          fields: { status: 'completed' },
          summary: live.slice(1, -1).map((u) => (u as { content: ContentBlock }).content),
        }),
      ]);

      // The new process reads the retained messages from the file for its own /compact.
      const end = await second.t.client.promptToEnd(sessionId, [text('/compact')]);
      expect(end.stopReason).toBe('end_turn');
      const next = compactionUpdates(second.t).slice(replayed.length);
      expect(idOf(next[0])).not.toBe(compactionId);
      expect(next[1]).toMatchObject({
        content: text('Summary of 3 earlier messages (2 from the user, 1 from the agent).'),
      });
      expect(next[2]).toMatchObject({ content: text('\n- The user wrote: plan the release') });
      expect(next[3]).toMatchObject({ content: text('\n- The user wrote: /compact') });
      expect(
        second.t
          .updates()
          .filter((u) => isState(u, 'idle'))
          .at(-1),
      ).toMatchObject({
        stopReason: 'end_turn',
      });
      await second.stop();
    },
    TIMEOUT,
  );
});
