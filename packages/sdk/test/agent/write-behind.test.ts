/**
 * An agent streaming a reply, chunk by awaited chunk, into a log whose appends take a while (as a
 * database's do) and which suggests writing behind: how many appends that costs, what clients
 * see, what the log holds once `idle()` resolves, and what happens when an append of chunks fails.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions } from '../../src/agent/index.js';
import {
  MemorySessionLog,
  type NewLogEntry,
  type SeqRange,
  type SessionLog,
  type WriteBehindLimits,
} from '../../src/history/index.js';
import { type Received, updates, waitFor, wire } from './harness.js';

const CHUNKS = 60;

/** A memory log whose appends take a couple of milliseconds, counted, optionally failing one. */
class SlowLog extends MemorySessionLog {
  readonly writeBehind: WriteBehindLimits | undefined;
  appends = 0;
  /** Fails the first append holding a chunk with this text (once). */
  failOn: string | undefined;

  constructor(writeBehind: WriteBehindLimits | undefined) {
    super();
    this.writeBehind = writeBehind;
  }

  override async append(sessionId: string, entries: readonly NewLogEntry[]): Promise<SeqRange> {
    this.appends++;
    await new Promise((resolve) => setTimeout(resolve, 2));
    const texts = entries.map((e) => (e.update as { content?: { text?: string } }).content?.text);
    if (this.failOn !== undefined && texts.includes(this.failOn)) {
      this.failOn = undefined;
      throw new Error('the database went away');
    }
    return super.append(sessionId, entries);
  }
}

interface TurnOutcome {
  /** Entries in the log when `idle()` resolved. */
  inLogAtIdle?: number;
  /** What the agent's chunk or idle calls threw, if anything. */
  error?: string;
}

function streamingAgent(log: SessionLog, outcome: TurnOutcome, options: Partial<AgentOptions> = {}): Agent {
  return new Agent({
    info: { name: 'streamer', version: '0.0.0' },
    history: log,
    ...options,
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const reply = await session.agentMessage();
      try {
        for (let i = 0; i < CHUNKS; i++) await reply.chunk({ type: 'text', text: `${i};` });
        await session.idle('end_turn');
      } catch (error) {
        // A failed write surfaces at a later call: a chunk, or the idle that waits for the log.
        outcome.error = (error as Error).message;
        await session.idle('error', undefined, { code: -32603, message: 'the reply could not be stored' });
        return;
      }
      outcome.inLogAtIdle = (await log.read(session.id, { limit: 1000 })).entries.length;
    },
  });
}

const ended = (r: Received[]) =>
  updates(r, 'state_update').some((u) => (u as { state?: string }).state === 'idle');
const chunkTexts = (r: Received[]) =>
  updates(r, 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text);

async function oneTurn(log: SlowLog, options: Partial<AgentOptions> = {}) {
  const outcome: TurnOutcome = {};
  const w = wire(streamingAgent(log, outcome, options));
  const sessionId = await w.client.newSession('/repo');
  const before = log.appends;
  await w.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
  await w.until(ended);
  return { w, sessionId, outcome, appends: log.appends - before };
}

describe('chunks written behind a slow log', () => {
  it('takes far fewer appends than chunks, shows clients every chunk in order, and idle() resolves with all of them in the log', async () => {
    const log = new SlowLog({ entries: 256, bytes: 1 << 20 });
    const { w, outcome, appends } = await oneTurn(log);
    await waitFor(() => outcome.inLogAtIdle !== undefined);
    expect(chunkTexts(w.received)).toEqual(Array.from({ length: CHUNKS }, (_, i) => `${i};`));
    // user message, running, the message's first chunk (its claim), the rest in a few batches, idle
    expect(appends).toBeLessThan(CHUNKS / 3);
    // user message + running + 60 chunks + idle, every one in the log once idle() resolved
    expect(outcome.inLogAtIdle).toBe(3 + CHUNKS);
    expect(outcome.error).toBeUndefined();
  });

  it('waits for every append when the agent says writeBehind: false, whatever the log suggests', async () => {
    const log = new SlowLog({ entries: 256, bytes: 1 << 20 });
    const { w, appends } = await oneTurn(log, { writeBehind: false });
    expect(chunkTexts(w.received)).toHaveLength(CHUNKS);
    expect(appends).toBeGreaterThanOrEqual(CHUNKS + 3);
  });

  it('waits for every append on a log that suggests nothing', async () => {
    const log = new SlowLog(undefined);
    const { appends } = await oneTurn(log);
    expect(appends).toBeGreaterThanOrEqual(CHUNKS + 3);
  });

  it('when an append of chunks fails, the agent learns it at a later call, clients and replay see a reply without a hole, and the turn ends with an error', async () => {
    const log = new SlowLog({ entries: 256, bytes: 1 << 20 });
    log.failOn = '20;';
    const { w, sessionId, outcome } = await oneTurn(log);
    expect(outcome.error).toBe('the database went away');
    const live = chunkTexts(w.received);
    // A prefix of the reply, ending before the failed batch: nothing after a hole.
    expect(live).toEqual(Array.from({ length: live.length }, (_, i) => `${i};`));
    expect(live.length).toBeLessThan(20);
    const idle = updates(w.received, 'state_update').at(-1) as { state: string; stopReason?: string };
    expect(idle).toMatchObject({ state: 'idle', stopReason: 'error' });
    // The log holds exactly what clients saw.
    const retained = (await log.read(sessionId, { limit: 1000 })).entries
      .map((e) => e.update as { sessionUpdate: string; content?: { text: string } })
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.content!.text);
    expect(retained).toEqual(live);
  });

  it("tells a client resuming while the turn's last chunks and idle are still being written the state as of its replay, not idle early", async () => {
    // A log whose appends can be held: the turn's tail waits in the writer while a client resumes.
    let gate: Promise<void> | undefined;
    let open = (): void => undefined;
    class GatedLog extends MemorySessionLog {
      readonly writeBehind = { entries: 64, bytes: 1 << 20 };
      override async append(sessionId: string, entries: readonly NewLogEntry[]): Promise<SeqRange> {
        await gate;
        return super.append(sessionId, entries);
      }
    }
    const log = new GatedLog();
    let idleCalled = (): void => undefined;
    const idleWaiting = new Promise<void>((resolve) => {
      idleCalled = resolve;
    });
    const agent = new Agent({
      info: { name: 'gated', version: '0.0.0' },
      history: log,
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: 'first;' });
        gate = new Promise<void>((resolve) => {
          open = resolve;
        });
        await reply.chunk({ type: 'text', text: 'a;' });
        await reply.chunk({ type: 'text', text: 'b;' });
        const idle = session.idle('end_turn');
        idleCalled();
        await idle;
      },
    });
    const a = wire(agent);
    const sessionId = await a.client.newSession('/repo');
    await a.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await idleWaiting;
    const b = wire(agent);
    await b.client.initialize();
    await b.client.resume(sessionId, { cwd: '/repo', replay: true });
    // The resume's state report is the state as of the replay: the turn is running.
    expect(updates(b.received, 'state_update')).toEqual([
      { sessionUpdate: 'state_update', state: 'running' },
    ]);
    open();
    await b.until(ended);
    // The replay folded what the log had into the message; the rest followed live.
    expect(updates(b.received, 'agent_message')).toMatchObject([
      { content: [{ type: 'text', text: 'first;' }] },
    ]);
    expect(chunkTexts(b.received)).toEqual(['a;', 'b;']);
    expect(updates(b.received, 'state_update')).toEqual([
      { sessionUpdate: 'state_update', state: 'running' },
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
    ]);
  });

  it('refuses limits that are not positive integers with a TypeError naming the field', () => {
    const make = (writeBehind: unknown) => () =>
      new Agent({ info: { name: 'a', version: '0' }, writeBehind: writeBehind as never, onPrompt() {} });
    expect(make({ entries: 0, bytes: 10 })).toThrow(
      'writeBehind.entries: expected a positive integer, got 0',
    );
    expect(make({ entries: 10, bytes: 1.5 })).toThrow(
      'writeBehind.bytes: expected a positive integer, got 1.5',
    );
    expect(make(null)).toThrow('writeBehind: expected { entries, bytes } or false');
    expect(make(false)).not.toThrow();
  });
});
