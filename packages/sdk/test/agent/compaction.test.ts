/**
 * Context compaction (`compaction_update`, `compaction_summary_chunk`) over a real child process
 * (the fixture agent in ./fixtures/v2-agent.ts, prompt `compact`): what the agent's
 * `session.compaction()` handle puts on the wire, how `session/resume` replays it, and what our
 * Client's ConversationStore makes of it live and after the replay.
 */
import type { ContentBlock } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcessTransport } from '../../src/transports/index.js';
import { spawnV2Agent, spawnV2Client, turnsEnded, type V2Child } from './fixtures/spawn-v2-agent.js';

const TIMEOUT = 60_000;
const children: V2Child[] = [];
let transport: ChildProcessTransport | undefined;
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop()));
  await transport?.shutdown({ graceMs: 500 });
  transport = undefined;
});

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const compactions = (updates: { sessionUpdate: string }[]) =>
  updates.filter((u) => u.sessionUpdate.startsWith('compaction_'));

describe('compaction reported by the agent', () => {
  it(
    'sends in_progress, summary chunks and the outcome under one compactionId, and replays them with the summary cleared first',
    async () => {
      const a = await spawnV2Agent();
      children.push(a);
      const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
      await a.connection.sendRequest('session/prompt', { sessionId, prompt: [text('compact')] });
      await a.until((u) => turnsEnded(u, sessionId));
      const live = compactions(a.of(sessionId));
      const firstId = (live[0] as unknown as { compactionId: string }).compactionId;
      expect(firstId).toMatch(/^compact_/);
      const thirdId = (live.at(-1) as unknown as { compactionId: string }).compactionId;
      expect(live).toEqual([
        { sessionUpdate: 'compaction_update', compactionId: firstId, status: 'in_progress' },
        {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId: firstId,
          content: text('The user asked '),
        },
        { sessionUpdate: 'compaction_summary_chunk', compactionId: firstId, content: text('for tests.') },
        { sessionUpdate: 'compaction_update', compactionId: firstId, status: 'completed' },
        { sessionUpdate: 'compaction_update', compactionId: 'compact_fixed', status: 'in_progress' },
        {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId: 'compact_fixed',
          content: text('a draft'),
        },
        {
          sessionUpdate: 'compaction_update',
          compactionId: 'compact_fixed',
          status: 'completed',
          summary: [text('Short.')],
        },
        { sessionUpdate: 'compaction_update', compactionId: thirdId, status: 'in_progress' },
        {
          sessionUpdate: 'compaction_update',
          compactionId: thirdId,
          status: 'failed',
          error: 'context too small',
        },
      ]);
      expect(new Set([firstId, 'compact_fixed', thirdId]).size).toBe(3);

      const before = a.of(sessionId).length;
      await a.connection.sendRequest('session/resume', {
        sessionId,
        cwd: '/repo',
        replayFrom: { type: 'start' },
      });
      const replayed = compactions(a.of(sessionId).slice(before));
      // Each compaction's first replayed update clears the summary its chunks then append to.
      expect(replayed).toEqual(live.map((u, i) => ([0, 4, 7].includes(i) ? { ...u, summary: null } : u)));
    },
    TIMEOUT,
  );
});

describe('compaction in the ConversationStore of our Client', () => {
  it(
    'holds each compaction with its status, summary and error, and a replay into it changes nothing',
    async () => {
      const started = await spawnV2Client('compaction-test');
      transport = started.transport;
      const { client, diagnostics } = started;
      const sessionId = await client.newSession('/repo');
      const end = await client.promptToEnd(sessionId, [text('compact')]);
      expect(end.stopReason).toBe('end_turn');
      const live = client.store.snapshot(sessionId).compactions;
      expect(live.map((c) => [c.fields, c.summary])).toEqual([
        [{ status: 'completed' }, [text('The user asked '), text('for tests.')]],
        [{ status: 'completed' }, [text('Short.')]],
        [{ status: 'failed', error: 'context too small' }, null],
      ]);
      expect(live[1]?.compactionId).toBe('compact_fixed');

      await client.resume(sessionId, { cwd: '/repo', replay: true });
      const replayed = client.store.snapshot(sessionId).compactions;
      expect(replayed.map((c) => [c.compactionId, c.fields, c.summary])).toEqual(
        live.map((c) => [c.compactionId, c.fields, c.summary]),
      );
      expect(diagnostics).toEqual([]);
    },
    TIMEOUT,
  );
});
