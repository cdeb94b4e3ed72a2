/**
 * The bridge's replay reconciliation (MessageTracker), property-tested on generated conversations:
 * a live stream, then a replay derived from it with messages left out (seen only live), inserted
 * (seen only in the replay), edited (other content under the same place) and cut into chunks
 * differently. Whatever the differences: an ID never names two contents (a client holding the
 * live conversation is never overwritten), no ID is given to two replayed messages, a message
 * seen only in the replay gets a new ID and is reported, a replayed message whose content is
 * unambiguous keeps its live ID, and a bridge restarted on the same ledger replays it the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageKind } from '../src/message-ids.js';
import { MemoryIdLedger } from '../src/v1-agent-as-v2/id-ledger.js';
import { MessageTracker, type ReplayedMessage, type V1Chunk } from '../src/v1-agent-as-v2/message-tracker.js';

type AgentKind = Exclude<MessageKind, 'user_message'>;
interface Item {
  readonly kind: MessageKind;
  readonly chunks: readonly string[];
}
interface Turn {
  readonly prompt: Item;
  readonly replies: readonly Item[];
}
type Op = 'keep' | 'omit' | 'edit' | 'rechunk';
/** What the replay does with one live item, and what it inserts before it. */
interface Change {
  readonly op: Op;
  readonly before: readonly Item[];
}

// A small alphabet makes equal contents (and prefixes) common; the words make unequal ones too.
const piece = fc.oneof(fc.constantFrom('a', 'b', 'ok', 'Done.'), fc.string({ minLength: 1, maxLength: 6 }));
const userItem = fc
  .array(piece, { minLength: 1, maxLength: 2 })
  .map((chunks) => ({ kind: 'user_message' as const, chunks }));
const agentItem = fc.record({
  kind: fc.constantFrom<AgentKind>('agent_message', 'agent_thought'),
  chunks: fc.array(piece, { minLength: 1, maxLength: 3 }),
});
const turnArb = fc.record({ prompt: userItem, replies: fc.array(agentItem, { maxLength: 3 }) });
const changeArb = fc.record({
  op: fc.constantFrom<Op>('keep', 'keep', 'keep', 'omit', 'edit', 'rechunk'),
  before: fc.array(fc.oneof(userItem, agentItem), { maxLength: 1 }),
});
const scenario = fc.array(turnArb, { minLength: 1, maxLength: 4 }).chain((turns) =>
  fc.record({
    turns: fc.constant(turns),
    changes: fc.array(changeArb, {
      minLength: turns.reduce((n, t) => n + 1 + t.replies.length, 0),
      maxLength: turns.reduce((n, t) => n + 1 + t.replies.length, 0),
    }),
  }),
);

const text = (item: Item): string => item.chunks.join('');
const block = (t: string) => ({ type: 'text' as const, text: t });
const chunkOf = (kind: MessageKind, t: string): V1Chunk =>
  ({ sessionUpdate: `${kind}_chunk`, content: block(t) }) as V1Chunk;

/** Streams the turns live (no echo: the bridge forwards each prompt; a tool call ends each reply). */
function streamLive(tracker: MessageTracker, turns: readonly Turn[]): { item: Item; id: string }[] {
  const live: { item: Item; id: string }[] = [];
  for (const turn of turns) {
    tracker.beginTurn(turn.prompt.chunks.map(block));
    live.push({ item: turn.prompt, id: tracker.startPrompt() });
    for (const reply of turn.replies) {
      let id = '';
      for (const c of reply.chunks) id = tracker.chunk(reply.kind, undefined, block(c)).messageId;
      tracker.breakRun();
      live.push({ item: reply, id });
    }
  }
  tracker.breakRun();
  return live;
}

/** The replay's items, each with the live item it comes from (undefined for an inserted one). */
function replayItems(live: readonly { item: Item; id: string }[], changes: readonly Change[]) {
  const items: { item: Item; from: { item: Item; id: string } | undefined; op: Op | 'insert' }[] = [];
  live.forEach((entry, i) => {
    const change = changes[i] as Change;
    for (const inserted of change.before) items.push({ item: inserted, from: undefined, op: 'insert' });
    // Kept in the list (so a turn whose prompt was left out is known) but not replayed.
    if (change.op === 'omit') {
      items.push({ item: entry.item, from: entry, op: 'omit' });
      return;
    }
    const item =
      change.op === 'edit'
        ? { kind: entry.item.kind, chunks: [...entry.item.chunks, '~edited'] }
        : change.op === 'rechunk'
          ? { kind: entry.item.kind, chunks: [text(entry.item)] }
          : entry.item;
    items.push({ item, from: entry, op: change.op });
  });
  return items;
}

/** Replays the items (user entries back to back, as agents replay them; a tool call after each reply). */
function replay(
  tracker: MessageTracker,
  items: readonly { item: Item; op: Op | 'insert' }[],
): ReplayedMessage[] {
  const out: ReplayedMessage[] = [];
  tracker.beginReplay();
  for (const { item, op } of items) {
    if (op === 'omit') continue;
    for (const c of item.chunks) out.push(...tracker.replayChunk(chunkOf(item.kind, c)));
    if (item.kind !== 'user_message') out.push(...tracker.replayBreak());
  }
  out.push(...tracker.endReplay());
  return out;
}

/** Each replayed message: its ID and whole text (chunks appended to an earlier one joined in). */
function folded(out: readonly ReplayedMessage[]): Map<string, { kind: MessageKind; text: string }> {
  const messages = new Map<string, { kind: MessageKind; text: string }>();
  for (const m of out) {
    const t = m.chunks.map((c) => (c.content as { text: string }).text).join('');
    const held = messages.get(m.messageId);
    if (m.reset || held === undefined) {
      expect(held, `${m.messageId} was started twice in one replay`).toBeUndefined();
      messages.set(m.messageId, { kind: m.kind, text: t });
    } else held.text += t;
  }
  return messages;
}

describe('replay reconciliation on generated live/replay pairs', () => {
  it('never gives one ID two contents, reports every replay-only message, and keeps unambiguous live IDs', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ turns, changes }) => {
        const ledger = new MemoryIdLedger();
        const reported: string[] = [];
        const tracker = new MessageTracker('s', ledger, { onDivergence: (d) => reported.push(d.messageId) });
        await tracker.load();
        const live = streamLive(tracker, turns);
        await tracker.persist();
        const liveContent = new Map(live.map(({ item, id }) => [id, `${item.kind}:${text(item)}`]));
        // Live: one ID per message.
        expect(liveContent.size).toBe(live.length);

        const items = replayItems(live, changes);
        const firstOut = replay(tracker, items);
        await tracker.persist();
        // Nothing replayed is lost or doubled: the chunks go out once each, in order.
        expect(firstOut.flatMap((m) => m.chunks.map((c) => (c.content as { text: string }).text))).toEqual(
          items.flatMap(({ item, op }) => (op === 'omit' ? [] : item.chunks)),
        );
        const replayed = folded(firstOut);

        for (const [id, { kind, text: t }] of replayed) {
          const before = liveContent.get(id);
          // One ID, one content: a live ID is reused only for the live content.
          if (before !== undefined) expect(`${kind}:${t}`).toBe(before);
          // A message seen only in the replay gets a new ID, and is reported.
          else expect(reported).toContain(id);
        }
        expect(reported.every((id) => replayed.has(id) && !liveContent.has(id))).toBe(true);

        // Unambiguous: a kept message whose content is unique among all messages of its kind live
        // and replayed (its own live and replayed copy aside) and not a chunk prefix of another's
        // (nor another's of it), in a turn whose prompt was replayed kept and unambiguous with no
        // ambiguous user entry inserted after it, keeps its live ID.
        // Each distinct message once: the live ones, and those only the replay has (inserted or edited).
        const everything = [
          ...live.map((l) => l.item),
          ...items.filter((r) => r.op === 'insert' || r.op === 'edit').map((r) => r.item),
        ];
        const prefixes = (item: Item): string[] =>
          item.chunks.map((_, n) => item.chunks.slice(0, n + 1).join(''));
        const unique = (item: Item): boolean => {
          const same = everything.filter((o) => o.kind === item.kind);
          if (same.filter((o) => text(o) === text(item)).length > 1) return false;
          // User entries replayed back to back are told apart by their first blocks.
          if (
            item.kind === 'user_message' &&
            same.some((o) => text(o) !== text(item) && o.chunks.some((c) => item.chunks.includes(c)))
          )
            return false;
          return same.every(
            (o) =>
              text(o) === text(item) ||
              (!prefixes(item).includes(text(o)) && !prefixes(o).includes(text(item))),
          );
        };
        let promptKept = false;
        /** The user entry replayed right before (back to back): where it ends is read from the ledger too. */
        let previousUser: Item | undefined;
        for (const { item, from, op } of items) {
          if (op === 'omit') {
            if (item.kind === 'user_message') promptKept = false;
            continue;
          }
          if (item.kind === 'user_message') {
            const clear = previousUser === undefined || unique(previousUser);
            previousUser = item;
            if (from === undefined) {
              if (!unique(item)) promptKept = false;
              continue;
            }
            promptKept = (op === 'keep' || op === 'rechunk') && clear && unique(from.item);
            if (!promptKept) continue;
          } else {
            previousUser = undefined;
            if (!promptKept) continue;
          }
          if (from === undefined || (op !== 'keep' && op !== 'rechunk')) continue;
          if (!unique(from.item)) continue;
          expect(replayed.get(from.id), `${from.id} (${text(from.item)}) keeps its live ID`).toEqual({
            kind: item.kind,
            text: text(item),
          });
        }

        // A bridge restarted on the ledger replays the same messages under the same IDs, and
        // reports nothing new.
        const restarted: string[] = [];
        const again = new MessageTracker('s', ledger, { onDivergence: (d) => restarted.push(d.messageId) });
        await again.load();
        const secondOut = replay(again, items);
        expect(secondOut).toEqual(firstOut);
        expect(restarted).toEqual([]);
      }),
      { numRuns: 300, seed: 39 },
    );
  });
});

describe('replay reconciliation, its bound and older ledgers', () => {
  it('replays a message longer than the hold under a new ID as it arrives, and reports it', async () => {
    const reported: string[] = [];
    const tracker = new MessageTracker('s', new MemoryIdLedger(), {
      maxHeld: 10,
      onDivergence: (d) => reported.push(d.reason),
    });
    await tracker.load();
    tracker.beginTurn([block('go')]);
    tracker.startPrompt();
    const live = ['123456', '789012', '345678'].map(
      (t) => tracker.chunk('agent_message', undefined, block(t)).messageId,
    )[0];
    tracker.breakRun();
    tracker.beginReplay();
    // The prompt ends where the ledger says it does: decided at once.
    const prompt = tracker.replayChunk(chunkOf('user_message', 'go'));
    expect(prompt.map((m) => [m.kind, m.reset])).toEqual([['user_message', true]]);
    // The first chunk is held (6 characters); the second passes the bound: out they go, under a new ID.
    expect(tracker.replayChunk(chunkOf('agent_message', '123456'))).toEqual([]);
    const over = tracker.replayChunk(chunkOf('agent_message', '789012'));
    expect(over).toHaveLength(1);
    expect(over[0]!.reset).toBe(true);
    expect(over[0]!.chunks).toHaveLength(2);
    expect(over[0]!.messageId).not.toBe(live);
    const rest = tracker.replayChunk(chunkOf('agent_message', '345678'));
    expect(rest).toEqual([
      {
        kind: 'agent_message',
        messageId: over[0]!.messageId,
        reset: false,
        chunks: [chunkOf('agent_message', '345678')],
      },
    ]);
    expect(tracker.endReplay()).toEqual([]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain('longer than the 10 characters');
  });

  it('takes a ledger written before content hashes as content unknown: IDs reused only by the agent’s own ID', async () => {
    const ledger = new MemoryIdLedger();
    await ledger.append('s', [
      { type: 'issue', kind: 'user_message', messageId: 'm1_old_prompt', chunks: 1 },
      { type: 'issue', kind: 'agent_message', messageId: 'm1_old_reply' },
      { type: 'end', kind: 'agent_message', messageId: 'm1_old_reply', chunks: 1 },
      { type: 'issue', kind: 'agent_message', messageId: 'named', v1Id: 'named' },
    ]);
    const reported: string[] = [];
    const tracker = new MessageTracker('s', ledger, { onDivergence: (d) => reported.push(d.messageId) });
    await tracker.load();
    tracker.beginReplay();
    const out = [
      ...tracker.replayChunk(chunkOf('user_message', 'hello')),
      ...tracker.replayChunk(chunkOf('agent_message', 'hi')),
      ...tracker.replayBreak(),
      ...tracker.replayChunk({ ...chunkOf('agent_message', 'named reply'), messageId: 'named' } as V1Chunk),
      ...tracker.endReplay(),
    ];
    const ids = out.map((m) => m.messageId);
    expect(ids).toHaveLength(3);
    expect(ids).not.toContain('m1_old_prompt');
    expect(ids).not.toContain('m1_old_reply');
    expect(ids[2]).toBe('named');
    expect(reported).toEqual([ids[0], ids[1]]);
  });
});
