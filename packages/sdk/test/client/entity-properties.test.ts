import type { SessionNotification } from '@acp-kit/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/client/conversation/index.js';
import { note, SESSION } from './helpers.js';

/** One tool call or terminal update: a field set, cleared or omitted, or a chunk appended. */
type Op =
  | { op: 'patch'; fields: Record<string, string | null> }
  | { op: 'content'; list: string[] | null }
  | { op: 'append'; piece: string };

interface Stream {
  entity: 'tool' | 'terminal';
  id: string;
  ops: Op[];
}

const pieceArb = fc.constantFrom('a', 'b', 'cd');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('patch' as const),
    fields: fc.dictionary(fc.constantFrom('title', 'status', 'extra'), fc.option(pieceArb, { nil: null }), {
      maxKeys: 3,
    }),
  }),
  fc.record({
    op: fc.constant('content' as const),
    list: fc.option(fc.array(pieceArb, { maxLength: 3 }), { nil: null }),
  }),
  fc.record({ op: fc.constant('append' as const), piece: pieceArb }),
);
const historyArb: fc.Arbitrary<Stream[]> = fc
  .uniqueArray(
    fc.tuple(fc.constantFrom<'tool' | 'terminal'>('tool', 'terminal'), fc.constantFrom('x1', 'x2', 'x3')),
    {
      minLength: 1,
      maxLength: 4,
      selector: ([entity, id]) => `${entity}:${id}`,
    },
  )
  .chain((keys) =>
    fc
      .tuple(...keys.map(() => fc.array(opArb, { minLength: 1, maxLength: 6 })))
      .map((lists) => keys.map(([entity, id], i) => ({ entity, id, ops: lists[i] ?? [] }))),
  );

function toNotification({ entity, id }: Stream, op: Op): SessionNotification {
  if (entity === 'tool') {
    const block = (piece: string) => ({ type: 'content', content: { type: 'text', text: piece } });
    if (op.op === 'patch') return note({ sessionUpdate: 'tool_call_update', toolCallId: id, ...op.fields });
    if (op.op === 'content') {
      return note({
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        content: op.list?.map(block) ?? null,
      });
    }
    return note({ sessionUpdate: 'tool_call_content_chunk', toolCallId: id, content: block(op.piece) });
  }
  if (op.op === 'patch') return note({ sessionUpdate: 'terminal_update', terminalId: id, ...op.fields });
  if (op.op === 'content') {
    return note({
      sessionUpdate: 'terminal_update',
      terminalId: id,
      output: op.list === null ? null : { data: op.list.join('') },
    });
  }
  return note({ sessionUpdate: 'terminal_output_chunk', terminalId: id, data: op.piece });
}

/** The rules written out plainly: what one stream should leave, as `fields` plus its content. */
function model(stream: Stream): { fields: Record<string, string>; content: string[] | null } {
  const fields: Record<string, string> = {};
  let content: string[] | null = null;
  for (const op of stream.ops) {
    if (op.op === 'patch') {
      for (const [key, value] of Object.entries(op.fields)) {
        if (value === null) delete fields[key];
        else fields[key] = value;
      }
    } else if (op.op === 'content') content = op.list === null ? null : [...op.list];
    else content = [...(content ?? []), op.piece];
  }
  return { fields, content };
}

/** What the store shows for one stream, in the model's terms. */
function shown(
  store: ConversationStore,
  stream: Stream,
): { fields: Record<string, string>; content: string[] | null } {
  const snapshot = store.snapshot(SESSION);
  const pick = (fields: Readonly<Record<string, unknown>>) =>
    Object.fromEntries(
      ['title', 'status', 'extra'].filter((k) => k in fields).map((k) => [k, fields[k] as string]),
    );
  if (stream.entity === 'tool') {
    const call = snapshot.toolCalls.find((t) => t.toolCallId === stream.id);
    const content = call?.fields.content as { content: { text: string } }[] | undefined;
    return { fields: pick(call?.fields ?? {}), content: content ? content.map((c) => c.content.text) : null };
  }
  const terminal = snapshot.terminals.find((t) => t.terminalId === stream.id);
  // A terminal's output is text: compare it with the model's pieces joined.
  return {
    fields: pick(terminal?.fields ?? {}),
    content: terminal?.output == null ? null : [terminal.output],
  };
}

function expected(stream: Stream): { fields: Record<string, string>; content: string[] | null } {
  const { fields, content } = model(stream);
  if (stream.entity === 'tool') return { fields, content };
  return { fields, content: content === null ? null : [content.join('')] };
}

describe('tool calls and terminals, by property', () => {
  it('end as the upsert rules say, whatever the interleaving across IDs and the batching', () => {
    fc.assert(
      fc.property(
        historyArb.chain((streams) =>
          fc.tuple(
            fc.constant(streams),
            fc.shuffledSubarray(
              streams.flatMap((s, i) => s.ops.map(() => i)),
              { minLength: streams.reduce((n, s) => n + s.ops.length, 0) },
            ),
            fc.nat(5),
          ),
        ),
        ([streams, order, batchSize]) => {
          const cursors = streams.map(() => 0);
          const notifications = order.map((i) => {
            const stream = streams[i]!;
            return toNotification(stream, stream.ops[cursors[i]!++]!);
          });
          const store = new ConversationStore();
          for (let at = 0; at < notifications.length; at += batchSize + 1) {
            store.applyBatch(notifications.slice(at, at + batchSize + 1));
          }
          for (const stream of streams) expect(shown(store, stream)).toEqual(expected(stream));
        },
      ),
      { numRuns: 200 },
    );
  });
});
