/**
 * The session writer on its own, against an append whose round trips the test completes by hand:
 * call order, one append in flight, calls made meanwhile written together, chunks written behind
 * within their limits, and what a failed write does to the calls after it.
 */
import { describe, expect, it } from 'vitest';
import { SessionWriter } from '../../src/agent/writing/session-writer.js';
import type { NewLogEntry, SeqRange } from '../../src/history/index.js';

/** A log append the test answers by hand; records every call's entries. */
function manualLog() {
  const calls: { texts: string[]; resolve: (range: SeqRange) => void; reject: (error: unknown) => void }[] =
    [];
  let seq = 0;
  const append = (entries: readonly NewLogEntry[]): Promise<SeqRange> =>
    new Promise((resolve, reject) => {
      calls.push({
        texts: entries.map((entry) => (entry.update as unknown as { text: string }).text),
        resolve,
        reject,
      });
    });
  /** Completes the oldest unanswered append (numbering its entries after the last). */
  const commit = async (): Promise<void> => {
    const call = calls.find((c) => !(c as { done?: boolean }).done)!;
    (call as { done?: boolean }).done = true;
    const first = seq + 1;
    seq += call.texts.length;
    call.resolve({ first, last: seq });
    await settle();
  };
  const fail = async (error: unknown): Promise<void> => {
    const call = calls.find((c) => !(c as { done?: boolean }).done)!;
    (call as { done?: boolean }).done = true;
    call.reject(error);
    await settle();
  };
  return { append, calls, commit, fail, texts: () => calls.map((c) => c.texts) };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

const chunk = (text: string): NewLogEntry[] => [{ update: { text } as never }];
const claimed = (text: string): NewLogEntry[] => [
  { update: { text } as never, claim: { kind: 'agent_message', messageId: text } },
];

/** A turn end (`idle` with a stop reason), tagged with `text` like the other test entries. */
const turnEnd = (text: string, stopReason = 'end_turn'): NewLogEntry[] => [
  { update: { sessionUpdate: 'state_update', state: 'idle', stopReason, text } as never, retain: false },
];

/** Tracks a promise's outcome without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { value, settled: true }),
    (error: unknown) => Object.assign(state, { error, settled: true }),
  );
  return state;
}

describe('SessionWriter', () => {
  it('appends in call order with one append in flight, writing the calls made meanwhile together, and answers each with its own range', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append);
    const a = track(writer.write(chunk('a'), false, 1));
    const b = track(writer.write(chunk('b'), false, 1));
    const c = track(writer.write([...chunk('c1'), ...chunk('c2')], false, 2));
    await settle();
    expect(log.texts()).toEqual([['a']]);
    expect(a.settled).toBe(false);
    await log.commit();
    expect(a.value).toEqual({ first: 1, last: 1 });
    expect(log.texts()).toEqual([['a'], ['b', 'c1', 'c2']]);
    expect(b.settled).toBe(false);
    await log.commit();
    expect(b.value).toEqual({ first: 2, last: 2 });
    expect(c.value).toEqual({ first: 3, last: 4 });
  });

  it('without limits, a chunk also waits until the log has it', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append);
    const a = track(writer.write(chunk('a'), true, 1));
    await settle();
    expect(a.settled).toBe(false);
    await log.commit();
    expect(a.settled).toBe(true);
  });

  it('with limits, answers chunks as soon as they are queued, and past the limits only as the log catches up', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 3, bytes: 1000 });
    const chunks = ['1', '2', '3', '4', '5'].map((t) => track(writer.write(chunk(t), true, 10)));
    await settle();
    expect(chunks.map((c) => c.settled)).toEqual([true, true, true, false, false]);
    expect(log.texts()).toEqual([['1']]);
    await log.commit(); // '1' is in the log: '4' fits now
    expect(chunks.map((c) => c.settled)).toEqual([true, true, true, true, false]);
    expect(log.texts()).toEqual([['1'], ['2', '3', '4', '5']]);
    await log.commit();
    expect(chunks.every((c) => c.settled && c.error === undefined)).toBe(true);
  });

  it('counts bytes against the limits as well as entries', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 100, bytes: 25 });
    const chunks = ['1', '2', '3'].map((t) => track(writer.write(chunk(t), true, 10)));
    await settle();
    expect(chunks.map((c) => c.settled)).toEqual([true, true, false]);
  });

  it('writes a call that claims a message alone, so its own failure fails nobody else', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 10, bytes: 1000 });
    track(writer.write(chunk('before'), true, 1));
    track(writer.write(chunk('queued'), true, 1));
    const claim = track(writer.write(claimed('m1'), false, 1));
    const after = track(writer.write(chunk('after'), true, 1));
    await log.commit();
    expect(log.texts()).toEqual([['before'], ['queued']]);
    await log.commit();
    expect(log.texts()).toEqual([['before'], ['queued'], ['m1']]);
    await log.fail(new Error('duplicate'));
    expect((claim.error as Error).message).toBe('duplicate');
    expect(log.texts()).toEqual([['before'], ['queued'], ['m1'], ['after']]);
    await log.commit();
    expect(after.error).toBeUndefined();
    // The failed claim was reported to its own caller: the next call goes through.
    const next = track(writer.write(chunk('next'), false, 1));
    await log.commit();
    expect(next.value).toEqual({ first: 4, last: 4 });
  });

  it('when chunks written behind fail, writes nothing queued after them, fails the waiting calls, and throws the error at the next call only once', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 10, bytes: 1000 });
    const first = track(writer.write(chunk('1'), true, 1));
    const second = track(writer.write(chunk('2'), true, 1));
    const third = track(writer.write(chunk('3'), true, 1));
    await settle();
    expect([first.settled, second.settled, third.settled]).toEqual([true, true, true]);
    await log.fail(new Error('connection lost'));
    // '2' and '3' would follow a hole: never appended.
    expect(log.texts()).toEqual([['1']]);
    const next = writer.write(chunk('4'), true, 1);
    await expect(next).rejects.toThrow('connection lost');
    expect(log.texts()).toEqual([['1']]);
    // Told once: the session goes on (an agent ends the turn with an error, for example).
    const idle = track(writer.write(chunk('idle'), false, 1));
    await settle();
    expect(log.texts()).toEqual([['1'], ['idle']]);
    await log.commit();
    expect(idle.value).toEqual({ first: 1, last: 1 });
  });

  it('when chunks written behind fail, a call waiting for the log behind them gets the error instead of the next call', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 10, bytes: 1000 });
    track(writer.write(chunk('1'), true, 1));
    track(writer.write(chunk('2'), true, 1));
    const idle = track(writer.write(chunk('idle'), false, 1));
    await log.fail(new Error('lease lost'));
    expect((idle.error as Error).message).toBe('lease lost');
    expect(log.texts()).toEqual([['1']]);
    const next = track(writer.write(chunk('again'), false, 1));
    await settle();
    expect(log.texts()).toEqual([['1'], ['again']]);
    await log.commit();
    expect(next.error).toBeUndefined();
  });

  it('when chunks written behind fail, still writes the first turn end queued behind them, alone and as a turn that failed, and fails the calls around it', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 10, bytes: 1000 });
    track(writer.write(chunk('1'), true, 1));
    track(writer.write(chunk('2'), true, 1));
    const before = track(writer.write(chunk('awaited'), false, 1));
    const idle = track(writer.write([...chunk('tail'), ...turnEnd('idle')], false, 1));
    const after = track(writer.write(turnEnd('second'), false, 1));
    await log.fail(new Error('connection lost'));
    expect((before.error as Error).message).toBe('connection lost');
    expect((after.error as Error).message).toBe('connection lost');
    // Only the turn end is written, without what came with it (it would follow the hole).
    expect(log.texts()).toEqual([['1'], ['idle']]);
    expect(log.calls[1]!.texts).toEqual(['idle']);
    await log.commit();
    expect(idle.value).toEqual({ first: 1, last: 1 });
    // The loss was reported by the turn end: the next call goes through.
    const next = track(writer.write(chunk('next'), true, 1));
    await settle();
    expect(next.error).toBeUndefined();
    expect(log.texts()).toEqual([['1'], ['idle'], ['next']]);
  });

  it('a turn end written after a loss says stop reason error, keeping the rest of the idle; its own failure goes to its caller', async () => {
    const written: NewLogEntry[][] = [];
    let fail = true;
    const writer = new SessionWriter(
      async (entries) => {
        written.push([...entries]);
        if (fail) throw new Error('still down');
        return { first: 1, last: entries.length };
      },
      { entries: 10, bytes: 1000 },
    );
    track(writer.write(chunk('1'), true, 1));
    const idle = track(
      writer.write(
        [
          {
            update: {
              sessionUpdate: 'state_update',
              state: 'idle',
              stopReason: 'end_turn',
              usage: { totalTokens: 3, inputTokens: 1, outputTokens: 2 },
            } as never,
            retain: false,
          },
        ],
        false,
        1,
      ),
    );
    await settle();
    expect((idle.error as Error).message).toBe('still down');
    expect(written[1]).toEqual([
      {
        update: {
          sessionUpdate: 'state_update',
          state: 'idle',
          stopReason: 'error',
          usage: { totalTokens: 3, inputTokens: 1, outputTokens: 2 },
          error: { code: -32603, message: expect.stringMatching(/could not be stored/) },
        },
        retain: false,
      },
    ]);
    // Its caller was told: nothing is thrown at the next call.
    fail = false;
    await expect(writer.write(chunk('next'), false, 1)).resolves.toEqual({ first: 1, last: 1 });
  });

  it('when the loss is pending and the next call ends the turn, writes it as a turn that failed instead of throwing', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 10, bytes: 1000 });
    track(writer.write(chunk('1'), true, 1));
    await log.fail(new Error('connection lost'));
    const idle = track(writer.write(turnEnd('idle', 'cancelled'), false, 1));
    await settle();
    expect(log.texts()).toEqual([['1'], ['idle']]);
    expect((log.calls[1] as unknown as { texts: string[] }).texts).toEqual(['idle']);
    await log.commit();
    expect(idle.value).toEqual({ first: 1, last: 1 });
    // An idle without a stop reason (a snapshot, ending no work) is written as it is.
    track(writer.write(chunk('2'), true, 1));
    await log.fail(new Error('again'));
    const snapshot = { sessionUpdate: 'state_update', state: 'idle', text: 'snap' } as never;
    track(writer.write([{ update: snapshot }], false, 1));
    await settle();
    expect(log.texts().at(-1)).toEqual(['snap']);
  });

  it('when a chunk over the limits is dropped behind a failed write, its own caller gets the error', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 2, bytes: 1000 });
    const chunks = ['1', '2', '3'].map((t) => track(writer.write(chunk(t), true, 1)));
    await settle();
    expect(chunks.map((c) => c.settled)).toEqual([true, true, false]);
    await log.fail(new Error('gone'));
    expect((chunks[2]!.error as Error).message).toBe('gone');
    // Its caller was told: the next call is not failed again.
    const next = track(writer.write(chunk('4'), false, 1));
    await settle();
    await log.commit();
    expect(next.error).toBeUndefined();
  });

  it('a failed call of awaited updates alone fails only itself; the calls queued after it are written', async () => {
    const log = manualLog();
    const writer = new SessionWriter(log.append, { entries: 10, bytes: 1000 });
    const a = track(writer.write(chunk('a'), false, 1));
    const b = track(writer.write(chunk('b'), true, 1));
    await log.fail(new Error('refused'));
    expect((a.error as Error).message).toBe('refused');
    expect(log.texts()).toEqual([['a'], ['b']]);
    await log.commit();
    expect(b.error).toBeUndefined();
  });

  it('an append that throws instead of rejecting fails its calls the same way', async () => {
    const writer = new SessionWriter(() => {
      throw new Error('closed');
    });
    await expect(writer.write(chunk('a'), false, 1)).rejects.toThrow('closed');
  });
});
