/**
 * Order-proofness of the ConversationStore, checked over random valid agent histories and many
 * delivery orders of each: every order that keeps each message's own updates in order (and the
 * state updates in order), with each prompt response anywhere after its submission, must give the
 * same final conversation; replaying the retained history afterwards changes nothing; identical
 * prompts never merge; a prompt whose response is lost is never matched by guesswork.
 */
import type { ContentBlock, SessionNotification } from '@acp-kit/schema';
import fc from 'fast-check';
import { ConversationStore, type ConversationSnapshot, type MessageKind } from '../src/client/index.js';
import { Random } from './fuzz/mutations.js';

const SESSION = 'sess_order';

type Op =
  | { op: 'full'; content: ContentBlock[] }
  | { op: 'chunk'; block: ContentBlock }
  | { op: 'meta'; meta: Record<string, number | null> }
  | { op: 'reset'; to: [] | null };

interface Stream {
  kind: MessageKind;
  messageId: string;
  ops: Op[];
  /** Set for the user messages of this client's own prompts. */
  prompt?: { localId: string; lost: boolean };
}

type StateOp = { state: 'running' | 'requires_action' } | { state: 'idle'; stopReason?: string };

/** One random valid history: message streams, a state stream, and this client's prompts among them. */
export interface History {
  streams: Stream[];
  states: StateOp[];
}

const text = (value: string): ContentBlock => ({ type: 'text', text: value }) as ContentBlock;
const blockArb = fc.constantFrom('a', 'b', 'same').map(text);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('full' as const), content: fc.array(blockArb, { maxLength: 3 }) }),
  fc.record({ op: fc.constant('chunk' as const), block: blockArb }),
  fc.record({
    op: fc.constant('meta' as const),
    meta: fc.dictionary(fc.constantFrom('x', 'y'), fc.option(fc.nat(3), { nil: null }), { maxKeys: 2 }),
  }),
  fc.record({ op: fc.constant('reset' as const), to: fc.constantFrom<[] | null>([], null) }),
);
const stateArb: fc.Arbitrary<StateOp> = fc.oneof(
  fc.constantFrom<StateOp>({ state: 'running' }, { state: 'requires_action' }, { state: 'idle' }),
  fc.constantFrom('end_turn', 'cancelled').map((stopReason): StateOp => ({ state: 'idle', stopReason })),
);

/** Random histories: 1–6 agent-reported messages of any kind, 0–3 own prompts (identical content), states. */
export const historyArb: fc.Arbitrary<History> = fc
  .record({
    keys: fc.uniqueArray(
      fc.tuple(
        fc.constantFrom<MessageKind>('user_message', 'agent_message', 'agent_thought'),
        fc.constantFrom('m1', 'm2', 'm3', 'm4'),
      ),
      { minLength: 1, maxLength: 6, selector: ([kind, id]) => `${kind}:${id}` },
    ),
    opLists: fc.array(fc.array(opArb, { minLength: 1, maxLength: 5 }), { minLength: 6, maxLength: 6 }),
    prompts: fc.array(fc.record({ chunked: fc.boolean(), lost: fc.boolean() }), { maxLength: 3 }),
    states: fc.array(stateArb, { maxLength: 5 }),
  })
  .map(({ keys, opLists, prompts, states }) => ({
    streams: [
      ...keys.map(([kind, messageId], i) => ({ kind, messageId, ops: opLists[i]! })),
      // The agent inserts every prompt, lost response or not; its content is the prompt's.
      ...prompts.map(
        ({ chunked, lost }, i): Stream => ({
          kind: 'user_message',
          messageId: `p${i}`,
          ops: chunked
            ? [
                { op: 'reset', to: [] },
                { op: 'chunk', block: text('same') },
              ]
            : [{ op: 'full', content: [text('same')] }],
          prompt: { localId: `local-p${i}`, lost },
        }),
      ),
    ],
    states,
  }));

function note(update: Record<string, unknown>): SessionNotification {
  return { sessionId: SESSION, update } as unknown as SessionNotification;
}

function toNotification(stream: Stream, op: Op): SessionNotification {
  const head = { sessionUpdate: stream.kind, messageId: stream.messageId };
  switch (op.op) {
    case 'full':
      return note({ ...head, content: op.content });
    case 'chunk':
      return note({ sessionUpdate: `${stream.kind}_chunk`, messageId: stream.messageId, content: op.block });
    case 'meta':
      return note({ ...head, _meta: op.meta });
    case 'reset':
      return note({ ...head, content: op.to });
  }
}

/** The obviously-correct final content and meta of one stream. */
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

type Step =
  | { kind: 'update'; notification: SessionNotification }
  | { kind: 'response'; localId: string; messageId: string }
  | { kind: 'lost'; localId: string };

/**
 * One random delivery order: each stream's ops stay in order, the state stream stays in order,
 * and each prompt's response (or its loss) lands anywhere.
 */
function schedule(history: History, random: Random): Step[] {
  const queues: Step[][] = history.streams.map((stream) =>
    stream.ops.map((op) => ({ kind: 'update' as const, notification: toNotification(stream, op) })),
  );
  queues.push(
    history.states.map((s) => ({
      kind: 'update' as const,
      notification: note({ sessionUpdate: 'state_update', ...s }),
    })),
  );
  for (const stream of history.streams) {
    if (!stream.prompt) continue;
    const { localId, lost } = stream.prompt;
    queues.push([
      lost ? { kind: 'lost', localId } : { kind: 'response', localId, messageId: stream.messageId },
    ]);
  }
  const steps: Step[] = [];
  const live = queues.filter((q) => q.length > 0).map((q) => [...q]);
  while (live.length > 0) {
    const i = random.int(0, live.length - 1);
    steps.push(live[i]!.shift()!);
    if (live[i]!.length === 0) live.splice(i, 1);
  }
  return steps;
}

function run(history: History, steps: Step[]): ConversationStore {
  const store = new ConversationStore();
  // Every prompt is submitted before the agent can report it.
  for (const stream of history.streams) {
    if (stream.prompt) store.addPending(SESSION, [text('same')], { localId: stream.prompt.localId });
  }
  for (const step of steps) {
    if (step.kind === 'update') store.apply(step.notification);
    else if (step.kind === 'response') store.resolvePending(step.localId, step.messageId);
    else store.markOutcomeUnknown(step.localId);
  }
  return store;
}

/** The conversation without feed positions (which legitimately follow first-report order). */
function canonical(snapshot: ConversationSnapshot): string {
  const messages = snapshot.messages
    .map(({ key, kind, messageId, content, meta, origin, localId }) => ({
      key,
      kind,
      messageId,
      content,
      meta,
      origin,
      localId,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const { state, stopReason, completedTurns } = snapshot.state;
  return JSON.stringify({ messages, state, stopReason, completedTurns });
}

/** Why a final conversation is wrong, judged against the model; undefined when it is right. */
function judge(history: History, snapshot: ConversationSnapshot): string | undefined {
  const byKey = new Map(snapshot.messages.map((m) => [m.key, m]));
  const expectedEntries = history.streams.length + history.streams.filter((s) => s.prompt?.lost).length;
  if (snapshot.messages.length !== expectedEntries) {
    return `expected ${expectedEntries} entries, got ${snapshot.messages.length}`;
  }
  for (const stream of history.streams) {
    const entry = byKey.get(`${stream.kind}:${stream.messageId}`);
    const expected = model(stream);
    if (!entry) return `message ${stream.kind}:${stream.messageId} missing`;
    if (JSON.stringify(entry.content) !== JSON.stringify(expected.content))
      return `content of ${entry.key} differs`;
    if (JSON.stringify(entry.meta) !== JSON.stringify(expected.meta)) return `meta of ${entry.key} differs`;
    if (!stream.prompt) {
      if (entry.localId !== null) return `${entry.key} was matched to a local submission`;
      continue;
    }
    const { localId, lost } = stream.prompt;
    if (lost) {
      // Never guessed: the agent's message stays unlinked, the submission stays unknown.
      if (entry.localId !== null) return `lost response guessed: ${entry.key} linked to ${entry.localId}`;
      const local = byKey.get(`local:${localId}`);
      if (local?.origin !== 'local-unknown' || local.messageId !== null)
        return `${localId} is not local-unknown`;
    } else if (entry.localId !== localId || entry.origin !== 'agent') {
      return `${entry.key} not linked to ${localId}`;
    }
  }
  return undefined;
}

function replay(history: History, random: Random): SessionNotification[] {
  return history.streams.flatMap((stream) => {
    const { content, meta } = model(stream);
    const head = {
      sessionUpdate: stream.kind,
      messageId: stream.messageId,
      ...(meta ? { _meta: meta } : {}),
    };
    return random.next() < 0.5
      ? [note({ ...head, content })]
      : [
          note({ ...head, content: [] }),
          ...content.map((block) =>
            note({ sessionUpdate: `${stream.kind}_chunk`, messageId: stream.messageId, content: block }),
          ),
        ];
  });
}

/** Figures of one run of {@link checkInterleavings}. */
export interface InterleavingReport {
  histories: number;
  interleavings: number;
  replays: number;
  /** Interleavings whose final conversation differed from the first order's, or from the model. */
  divergences: number;
  samples: string[];
}

/** Checks `histories` random histories, each under `perHistory` delivery orders and 1–3 replays. */
export function checkInterleavings(options: {
  histories: number;
  perHistory: number;
  seed: number;
}): InterleavingReport {
  const report: InterleavingReport = {
    histories: 0,
    interleavings: 0,
    replays: 0,
    divergences: 0,
    samples: [],
  };
  const random = new Random(options.seed);
  const fail = (history: History, why: string): void => {
    report.divergences++;
    if (report.samples.length < 5) report.samples.push(`${why} in ${JSON.stringify(history)}`.slice(0, 600));
  };
  for (const history of fc.sample(historyArb, { numRuns: options.histories, seed: options.seed })) {
    report.histories++;
    let reference: string | undefined;
    for (let n = 0; n < options.perHistory; n++) {
      report.interleavings++;
      const store = run(history, schedule(history, random));
      const snapshot = store.snapshot(SESSION);
      const wrong = judge(history, snapshot);
      const form = canonical(snapshot);
      reference ??= form;
      if (wrong) {
        fail(history, wrong);
        continue;
      }
      if (form !== reference) {
        fail(history, 'final conversation depends on delivery order');
        continue;
      }
      const before = snapshot.messages;
      const times = random.int(1, 3);
      for (let t = 0; t < times; t++) store.applyBatch(replay(history, random));
      report.replays += times;
      if (JSON.stringify(store.snapshot(SESSION).messages) !== JSON.stringify(before)) {
        fail(history, 'replaying retained history changed the conversation');
      }
    }
  }
  return report;
}
