import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConversationStore, type MessageKind } from '../../src/client/conversation/index.js';
import { chunk, SESSION, text, upsert } from './helpers.js';

type Op =
  | { op: 'full'; content: ContentBlock[] }
  | { op: 'chunk'; block: ContentBlock }
  | { op: 'meta'; meta: Record<string, unknown> }
  | { op: 'reset'; to: [] | null };

interface Stream {
  kind: MessageKind;
  messageId: string;
  ops: Op[];
}

const RUNS = 150;
const kindArb = fc.constantFrom<MessageKind>(
  'user_message',
  'agent_message',
  'agent_thought',
  'session_message',
);
// A tiny alphabet so identical content across messages is common.
const blockArb = fc.constantFrom('a', 'b', 'hi').map(text);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('full' as const), content: fc.array(blockArb, { maxLength: 3 }) }),
  fc.record({ op: fc.constant('chunk' as const), block: blockArb }),
  fc.record({
    op: fc.constant('meta' as const),
    meta: fc.dictionary(fc.constantFrom('x', 'y'), fc.option(fc.nat(3), { nil: null }), { maxKeys: 2 }),
  }),
  fc.record({ op: fc.constant('reset' as const), to: fc.constantFrom<[] | null>([], null) }),
);

/** A valid agent history: distinct (kind, messageId) pairs, each with its own ordered stream of ops. */
const historyArb: fc.Arbitrary<Stream[]> = fc
  .uniqueArray(fc.tuple(kindArb, fc.constantFrom('m1', 'm2', 'm3', 'm4')), {
    minLength: 1,
    maxLength: 6,
    selector: ([kind, id]) => `${kind}:${id}`,
  })
  .chain((keys) =>
    fc
      .tuple(...keys.map(() => fc.array(opArb, { minLength: 1, maxLength: 5 })))
      .map((opLists) => keys.map(([kind, messageId], i) => ({ kind, messageId, ops: opLists[i] ?? [] }))),
  );

function toNotification(stream: Stream, op: Op): SessionNotification {
  switch (op.op) {
    case 'full':
      return upsert(stream.kind, stream.messageId, op.content);
    case 'chunk':
      return chunk(stream.kind, stream.messageId, op.block);
    case 'meta':
      return upsert(stream.kind, stream.messageId, undefined, { _meta: op.meta });
    case 'reset':
      return upsert(stream.kind, stream.messageId, op.to);
  }
}

/** Every interleaving of the streams that keeps each stream's own order: a permutation of stream tokens. */
function interleavingArb(streams: Stream[]): fc.Arbitrary<number[]> {
  const tokens = streams.flatMap((s, i) => s.ops.map(() => i));
  return fc.shuffledSubarray(tokens, { minLength: tokens.length, maxLength: tokens.length });
}

function interleave(streams: Stream[], order: number[]): SessionNotification[] {
  const next = streams.map(() => 0);
  return order.map((i) => {
    const stream = streams[i]!;
    return toNotification(stream, stream.ops[next[i]!++]!);
  });
}

/** Streams applied one after another, in the order their first op appears in `order`. */
function sequential(streams: Stream[], order: number[]): SessionNotification[] {
  const firsts = [...new Set(order)];
  return firsts.flatMap((i) => streams[i]!.ops.map((op) => toNotification(streams[i]!, op)));
}

/** Obviously-correct model of one message's final content and meta, copying arrays freely. */
function model(stream: Stream): { content: ContentBlock[]; meta: Record<string, unknown> | null } {
  let content: ContentBlock[] = [];
  let meta: Record<string, unknown> | null = null;
  for (const op of stream.ops) {
    if (op.op === 'full') content = [...op.content];
    else if (op.op === 'chunk') content = [...content, op.block];
    else if (op.op === 'reset') content = [];
    else {
      const merged: Record<string, unknown> = { ...(meta ?? {}) };
      for (const [key, value] of Object.entries(op.meta)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      meta = merged;
    }
  }
  return { content, meta };
}

function run(notifications: SessionNotification[]): ConversationStore {
  const store = new ConversationStore({ unstable: true });
  store.applyBatch(notifications);
  return store;
}

const historyWithOrder = historyArb.chain((streams) =>
  fc.tuple(fc.constant(streams), interleavingArb(streams), interleavingArb(streams)),
);

describe('ConversationStore properties', () => {
  it('reaches the modelled content for every interleaving, ordered by first report', () => {
    fc.assert(
      fc.property(historyWithOrder, ([streams, order]) => {
        const { messages } = run(interleave(streams, order)).snapshot(SESSION);
        const firsts = [...new Set(order)];
        expect(messages.map((m) => `${m.kind}:${m.messageId}`)).toEqual(
          firsts.map((i) => `${streams[i]!.kind}:${streams[i]!.messageId}`),
        );
        for (const [position, i] of firsts.entries()) {
          const expected = model(streams[i]!);
          expect(messages[position]?.content).toEqual(expected.content);
          expect(messages[position]?.meta).toEqual(expected.meta);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('gives the same final conversation for any two interleavings with the same first reports', () => {
    fc.assert(
      fc.property(historyWithOrder, ([streams, order]) => {
        const interleaved = run(interleave(streams, order)).snapshot(SESSION);
        const oneByOne = run(sequential(streams, order)).snapshot(SESSION);
        expect(interleaved.messages).toEqual(oneByOne.messages);
      }),
      { numRuns: RUNS },
    );
  });

  it('is idempotent under replay of the final state, by chunks or by full updates, any number of times', () => {
    fc.assert(
      fc.property(historyWithOrder, fc.integer({ min: 1, max: 3 }), ([streams, order], times) => {
        const store = run(interleave(streams, order));
        const before = store.snapshot(SESSION).messages;
        const replay = before.flatMap((m, i): SessionNotification[] => {
          const kind = m.kind;
          const id = m.messageId!;
          const meta = m.meta === null ? {} : { _meta: m.meta };
          return i % 2 === 0
            ? [upsert(kind, id, [], meta), ...m.content.map((b) => chunk(kind, id, b))]
            : [upsert(kind, id, [...m.content], meta)];
        });
        for (let n = 0; n < times; n++) store.applyBatch(replay);
        expect(store.snapshot(SESSION).messages).toEqual(before);
        expect(run(replay).snapshot(SESSION).messages).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('does not let the position of the prompt response change the result', () => {
    const withMine = historyArb
      .map((streams) =>
        streams.some((s) => s.kind === 'user_message' && s.messageId === 'm1')
          ? streams
          : [
              ...streams,
              {
                kind: 'user_message' as const,
                messageId: 'm1',
                ops: [{ op: 'chunk' as const, block: text('q') }],
              },
            ],
      )
      .chain((streams) =>
        fc
          .tuple(fc.constant(streams), interleavingArb(streams))
          .chain(([s, order]) =>
            fc.tuple(fc.constant(s), fc.constant(order), fc.nat(order.length), fc.nat(order.length)),
          ),
      );
    fc.assert(
      fc.property(withMine, ([streams, order, at1, at2]) => {
        const notifications = interleave(streams, order);
        const withResponseAt = (at: number) => {
          const store = new ConversationStore({ unstable: true });
          const localId = store.addPending(SESSION, [text('q')], { localId: 'mine' });
          store.applyBatch(notifications.slice(0, at));
          store.resolvePending(localId, 'm1');
          store.applyBatch(notifications.slice(at));
          return store.snapshot(SESSION).messages;
        };
        const a = withResponseAt(at1);
        expect(a).toEqual(withResponseAt(at2));
        const mine = a.filter((m) => m.localId === 'mine');
        expect(mine).toHaveLength(1);
        expect(mine[0]).toMatchObject({ messageId: 'm1', origin: 'agent' });
        expect(a.filter((m) => m.kind === 'user_message' && m.messageId === 'm1')).toHaveLength(1);
      }),
      { numRuns: RUNS },
    );
  });

  it('never merges identical prompts, whatever order their updates and responses arrive in', () => {
    const arb = fc.integer({ min: 2, max: 5 }).chain((n) =>
      fc.tuple(
        fc.constant(n),
        fc.shuffledSubarray(
          Array.from({ length: 2 * n }, (_, i) => i),
          { minLength: 2 * n, maxLength: 2 * n },
        ),
      ),
    );
    fc.assert(
      fc.property(arb, ([n, schedule]) => {
        const store = new ConversationStore({ unstable: true });
        const localIds = Array.from({ length: n }, () => store.addPending(SESSION, [text('same')]));
        for (const step of schedule) {
          const i = step % n;
          if (step < n) store.apply(upsert('user_message', `u${i}`, [text('same')]));
          else store.resolvePending(localIds[i]!, `u${i}`);
        }
        const { messages } = store.snapshot(SESSION);
        expect(messages).toHaveLength(n);
        expect(new Set(messages.map((m) => m.localId))).toEqual(new Set(localIds));
        for (const m of messages) expect(m.localId).toBe(localIds[Number(m.messageId!.slice(1))]);
      }),
      { numRuns: RUNS },
    );
  });

  it('never guesses an unknown outcome, even when a replayed message has the same content', () => {
    fc.assert(
      fc.property(historyWithOrder, ([streams, order]) => {
        const store = new ConversationStore({ unstable: true });
        const localId = store.addPending(SESSION, [text('hi')]);
        store.markOutcomeUnknown(localId);
        store.applyBatch(interleave(streams, order));
        store.applyBatch([upsert('user_message', 'echo', [text('hi')])]);
        const { messages } = store.snapshot(SESSION);
        expect(messages.filter((m) => m.localId === localId)).toEqual([
          expect.objectContaining({ origin: 'local-unknown', messageId: null, content: [text('hi')] }),
        ]);
        expect(messages.at(-1)?.localId).toBe(localId);
      }),
      { numRuns: RUNS },
    );
  });
});
