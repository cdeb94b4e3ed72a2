/**
 * An agent that ends its turn exactly once (one `idle()`, no retry) while the chunks it streamed
 * just before, written behind, fail to reach the log. The turn must still end, in the log and for
 * every client: the idle queued behind the lost chunks is written, not dropped unattempted (else
 * the session stays `running` for everyone). It ends with stop reason `error`: the reply the
 * clients saw stops where the log lost it, so `end_turn` would tell them a cut reply was complete.
 */
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import {
  HistoryStoreError,
  MemorySessionLog,
  type NewLogEntry,
  type SeqRange,
} from '../../src/history/index.js';
import { type Received, updates, waitFor, wire } from './harness.js';

type State = { sessionUpdate: string; state?: string; stopReason?: string; error?: { code: number } };

/**
 * A memory log that suggests writing behind, whose appends the test can hold (`hold()`, then
 * `release()`) and fail: the next `failures` appends throw `io`, as while a database is away.
 */
class FaultyLog extends MemorySessionLog {
  readonly writeBehind = { entries: 64, bytes: 1 << 20 };
  failures = 0;
  /** The updates of every append attempted, in order (failed ones included). */
  readonly attempts: State[][] = [];
  #gate: Promise<void> | undefined;
  #open = (): void => undefined;

  hold(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  release(): void {
    this.#gate = undefined;
    this.#open();
  }

  override async append(sessionId: string, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    await this.#gate;
    this.attempts.push(entries.map((entry) => entry.update as unknown as State));
    if (this.failures > 0) {
      this.failures--;
      throw new HistoryStoreError('io', 'cannot append to the session: the database went away');
    }
    return super.append(sessionId, entries);
  }
}

/**
 * An agent whose turn streams `first;` (awaited into the log), then — with the log held — `a;`,
 * `b;` and its one `idle('end_turn')`, which queues behind them. `idle` records how that call went.
 */
function endOnceAgent(log: FaultyLog) {
  const idle: { called: boolean; outcome?: 'resolved' | 'rejected'; error?: unknown } = { called: false };
  const agent = new Agent({
    info: { name: 'ends-once', version: '0.0.0' },
    history: log,
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: 'first;' });
      log.hold();
      await reply.chunk({ type: 'text', text: 'a;' });
      await reply.chunk({ type: 'text', text: 'b;' });
      const ending = session.idle('end_turn');
      idle.called = true;
      await ending.then(
        () => {
          idle.outcome = 'resolved';
        },
        (error: unknown) => {
          idle.outcome = 'rejected';
          idle.error = error;
        },
      );
    },
  });
  return { agent, idle };
}

const turnEnds = (r: Received[]) =>
  (updates(r, 'state_update') as State[]).filter((u) => u.state === 'idle' && u.stopReason !== undefined);
const chunkTexts = (r: Received[]) =>
  updates(r, 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text);
const logStates = async (log: FaultyLog, sessionId: string) =>
  (await log.read(sessionId, { limit: 100 })).entries
    .map((entry) => entry.update as unknown as State)
    .filter((update) => update.sessionUpdate === 'state_update')
    .map((update) => `${update.state}${update.stopReason ? `/${update.stopReason}` : ''}`);

describe('a turn ended once while the chunks written behind it fail', () => {
  it('still ends once the log takes writes again: one idle/error for the clients, in the log and shown on resume, and idle() resolves', async () => {
    const log = new FaultyLog();
    const { agent, idle } = endOnceAgent(log);
    const a = wire(agent);
    const sessionId = await a.client.newSession('/repo');
    await a.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await waitFor(() => idle.called);
    // The append holding `a;` fails (`b;` and the idle are queued behind it); the log works again.
    log.failures = 1;
    log.release();
    await waitFor(() => idle.outcome !== undefined);
    await a.until((r) => turnEnds(r).length > 0);

    expect(idle.outcome).toBe('resolved');
    expect(turnEnds(a.received)).toEqual([
      {
        sessionUpdate: 'state_update',
        state: 'idle',
        stopReason: 'error',
        error: { code: -32603, message: expect.stringMatching(/could not be stored/) },
      },
    ]);
    // The clients saw the reply up to the loss, and nothing after a hole.
    expect(chunkTexts(a.received)).toEqual(['first;']);
    expect(await logStates(log, sessionId)).toEqual(['running', 'idle/error']);

    // A client resuming now is told the session is idle, and replays the reply the log holds.
    const b = wire(agent);
    await b.client.initialize();
    await b.client.resume(sessionId, { cwd: '/repo', replay: true });
    expect((updates(b.received, 'state_update') as State[]).map((u) => u.state)).toEqual(['idle']);
    expect(updates(b.received, 'agent_message')).toMatchObject([
      { content: [{ type: 'text', text: 'first;' }] },
    ]);
    // Exactly one turn end for the first client, even after a while.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(turnEnds(a.received)).toHaveLength(1);
  });

  it('attempts that idle even while the log still fails, so a log or ownership can keep it to write later, and idle() rejects with the failure', async () => {
    const log = new FaultyLog();
    const { agent, idle } = endOnceAgent(log);
    const a = wire(agent);
    const sessionId = await a.client.newSession('/repo');
    await a.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await waitFor(() => idle.called);
    const before = log.attempts.length;
    // The database stays away: the chunks' append fails, and so does the idle's.
    log.failures = 2;
    log.release();
    await waitFor(() => idle.outcome !== undefined);

    expect(idle.outcome).toBe('rejected');
    expect(idle.error).toMatchObject({ code: 'io' });
    const tried = log.attempts.slice(before);
    expect(tried).toHaveLength(2);
    expect(tried[0]!.map((u) => u.sessionUpdate)).toEqual(['agent_message_chunk']);
    // The turn end was attempted on its own, as idle/error: a log that keeps failed turn ends
    // (the PostgreSQL ownership's owed idle) writes exactly this once it can.
    expect(tried[1]).toEqual([
      {
        sessionUpdate: 'state_update',
        state: 'idle',
        stopReason: 'error',
        error: { code: -32603, message: expect.stringMatching(/could not be stored/) },
      },
    ]);
    expect(await logStates(log, sessionId)).toEqual(['running']);
  });

  it('when the loss was already reported to nobody and the next call is the idle, that idle is written as idle/error instead of failing unattempted', async () => {
    const log = new FaultyLog();
    let resolveIdle = (): void => undefined;
    const proceed = new Promise<void>((resolve) => {
      resolveIdle = resolve;
    });
    const idle: { outcome?: 'resolved' | 'rejected' } = {};
    let streamed = false;
    const agent = new Agent({
      info: { name: 'ends-once-later', version: '0.0.0' },
      history: log,
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: 'first;' });
        log.hold();
        await reply.chunk({ type: 'text', text: 'a;' });
        streamed = true;
        // The append of `a;` fails before the idle is called: every chunk's caller was answered.
        await proceed;
        await session.idle('end_turn').then(
          () => {
            idle.outcome = 'resolved';
          },
          () => {
            idle.outcome = 'rejected';
          },
        );
      },
    });
    const a = wire(agent);
    const sessionId = await a.client.newSession('/repo');
    await a.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await waitFor(() => streamed);
    const before = log.attempts.length;
    log.failures = 1;
    log.release();
    await waitFor(() => log.attempts.length > before);
    await new Promise((resolve) => setTimeout(resolve, 10));
    resolveIdle();
    await waitFor(() => idle.outcome !== undefined);
    await a.until((r) => turnEnds(r).length > 0);

    expect(idle.outcome).toBe('resolved');
    expect(turnEnds(a.received)).toMatchObject([{ state: 'idle', stopReason: 'error' }]);
    expect(await logStates(log, sessionId)).toEqual(['running', 'idle/error']);
  });
});
