// #30 "bad input": a background terminal that floods output (without waiting for its writes)
// cannot starve the foreground turn's updates or another session's turn: each background task has
// its own bounded queue, so the session's writer holds at most one of its entries at a time.
import type { SessionNotification } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { TASK_HELD_BYTES, TaskQueue, droppedNotice } from '../../src/agent/work/task-queue.js';
import { floodingAgent } from './fixtures/flooding-agent.js';
import { type Received, updates, wire } from './harness.js';

type Update = SessionNotification['update'];
const isFlood = (u: Update): boolean => u.sessionUpdate === 'terminal_output_chunk';
const endsTurn = (u: Update): boolean =>
  u.sessionUpdate === 'state_update' && typeof (u as { stopReason?: unknown }).stopReason === 'string';
const turnEnds = (received: Received[]): number => updates(received).filter(endsTurn).length;

describe('a flooding background terminal', () => {
  it('lets the foreground turn of its own session through: only a few merged output chunks arrive between the prompt and its end, while thousands of output calls were made', async () => {
    const { agent, terminals, written } = floodingAgent({ burst: 200, chunks: 5 });
    const w = wire(agent);
    const sessionId = await w.client.newSession('/repo');
    await w.client.prompt(sessionId, [{ type: 'text', text: 'flood' }]);
    await w.until((r) => updates(r).filter(isFlood).length >= 20 && written.calls >= 2000);

    const from = w.received.length;
    const callsBefore = written.calls;
    const end = await w.client.promptToEnd(sessionId, [{ type: 'text', text: 'hello' }]);
    expect(end.stopReason).toBe('end_turn');
    const turn = updates(w.received.slice(from));
    const idle = turn.findIndex(endsTurn);
    const floodDuringTurn = turn.slice(0, idle).filter(isFlood).length;
    const foreground = turn.slice(0, idle + 1).filter((u) => !isFlood(u));
    // user_message, running, the agent message's 5 chunks (and its opening), idle.
    expect(foreground.map((u) => u.sessionUpdate)).toContain('user_message');
    expect(foreground.filter((u) => u.sessionUpdate === 'agent_message_chunk')).toHaveLength(5);
    console.log(
      `flood: ${written.calls} output calls; ${floodDuringTurn} output chunks among the foreground turn's ${foreground.length} updates (${callsBefore} calls before it)`,
    );
    // At most one merged chunk of it was written per foreground write (one queued entry per task).
    expect(floodDuringTurn).toBeLessThanOrEqual(2 * (foreground.length + 1));

    await w.client.cancelTerminal(sessionId, terminals.get(sessionId)!.terminalId);
    await w.until((r) =>
      updates(r).some(
        (u) =>
          u.sessionUpdate === 'state_update' && (u as { background?: unknown[] }).background?.length === 0,
      ),
    );
    // Output is merged, never lost or reordered, for a caller this fast (it stays under the bound).
    const lines = updates(w.received)
      .filter(isFlood)
      .map((u) => (u as { data: string }).data)
      .join('')
      .split('\n')
      .filter(Boolean);
    expect(lines.slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => `y ${i + 1}`));
  });

  it('lets another session’s turn run to its end while it floods', async () => {
    const { agent, terminals, written } = floodingAgent({ burst: 50, chunks: 5 });
    const flooder = wire(agent);
    const other = wire(agent);
    const flooding = await flooder.client.newSession('/repo');
    await flooder.client.prompt(flooding, [{ type: 'text', text: 'flood' }]);
    await flooder.until((r) => updates(r).filter(isFlood).length >= 20);
    const quiet = await other.client.newSession('/repo');
    for (let turn = 1; turn <= 3; turn++) {
      const end = await other.client.promptToEnd(quiet, [{ type: 'text', text: `hello ${turn}` }]);
      expect(end.stopReason).toBe('end_turn');
    }
    expect(turnEnds(other.received)).toBe(3);
    // The flood was still running when the other session's three turns had ended.
    expect(terminals.get(flooding)!.signal.aborted).toBe(false);
    expect(updates(flooder.received).some((u) => (u as { exitStatus?: unknown }).exitStatus != null)).toBe(
      false,
    );
    expect(written.calls).toBeGreaterThan(0);
    await flooder.client.cancelTerminal(flooding, terminals.get(flooding)!.terminalId);
    await flooder.until((r) => updates(r).some((u) => (u as { exitStatus?: unknown }).exitStatus != null));
  });
});

describe('TaskQueue', () => {
  it('merges output that waits into one chunk, keeps call order with other reports, and reports output dropped past its bound where it was dropped', async () => {
    const written: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const queue = new TaskQueue(async (data) => {
      written.push(data);
      await gate;
    });
    const first = queue.output('a');
    await new Promise((resolve) => setImmediate(resolve));
    void queue.output('b');
    void queue.output('c');
    const exit = queue.run(async () => void written.push('EXIT'));
    // Held: the first write waits; b and c wait merged; the exit waits behind them.
    expect(written).toEqual(['a']);
    release();
    await Promise.all([first, exit]);
    expect(written).toEqual(['a', 'bc', 'EXIT']);

    // Past the bound, output is dropped and the gap reported before the next output.
    const big = new TaskQueue(async (data) => void written.splice(0, written.length, ...written, data));
    written.length = 0;
    const slow = new Promise<void>((resolve) => setTimeout(resolve, 5));
    const block = big.run(() => slow);
    const piece = 'x'.repeat(64 * 1024);
    const calls = Math.ceil(TASK_HELD_BYTES / piece.length) + 3;
    const queued = Array.from({ length: calls }, () => big.output(piece));
    await Promise.all([block, ...queued]);
    await big.output('after');
    const text = written.join('');
    expect(text.endsWith(`${droppedNotice(3 * piece.length)}after`)).toBe(true);
    expect(text.length).toBe(TASK_HELD_BYTES + droppedNotice(3 * piece.length).length + 'after'.length);
  });
});
