import { type HistoryStore, MemoryHistoryStore } from '@acp-kit/sdk';
import type { MessageTarget } from '@acp-kit/sdk/adapter';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteHistoryStore } from '../src/index.js';
import { tempDir, text } from './helpers.js';

const tmp = tempDir('differential');
afterAll(tmp.cleanup);

/** Small deterministic PRNG (mulberry32), so a failing seed can be replayed exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KINDS = ['user_message', 'agent_message', 'agent_thought'] as const;

type Step = (store: HistoryStore) => Promise<unknown>;

/** A random but valid-or-invalid mix of every operation, drawn from small pools so they collide. */
function randomSteps(seed: number, count: number): { label: string; run: Step }[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const sessions = ['s1', 's2', 's3'];
  const ids = ['m1', 'm2', 'm3', 'm4', 'm5'];
  const target = (): MessageTarget =>
    random() < 0.3 ? pick(ids) : { kind: pick(KINDS), messageId: pick(ids) };
  const blocks = () => Array.from({ length: Math.floor(random() * 3) }, () => text(pick(['a', 'b', 'c'])));
  const steps: { label: string; run: Step }[] = [];
  for (let i = 0; i < count; i++) {
    const session = pick(sessions);
    const roll = random();
    if (roll < 0.1) {
      steps.push({
        label: `create ${session}`,
        run: (s) => s.createSession({ sessionId: session, cwd: '/w', createdAt: '2026-01-01T00:00:00.000Z' }),
      });
    } else if (roll < 0.13) {
      steps.push({ label: `delete ${session}`, run: (s) => s.deleteSession(session) });
    } else if (roll < 0.38) {
      const message = {
        kind: pick(KINDS),
        messageId: pick(ids),
        content: blocks(),
        ...(random() < 0.5 ? { via: pick(['full', 'chunks'] as const) } : {}),
        ...(random() < 0.3 ? { meta: { n: i } } : {}),
      };
      steps.push({
        label: `append ${session} ${JSON.stringify(message)}`,
        run: (s) => s.appendMessage(session, message),
      });
    } else if (roll < 0.58) {
      const t = target();
      steps.push({
        label: `chunk ${session} ${JSON.stringify(t)}`,
        run: (s) => s.appendChunk(session, t, text(String(i))),
      });
    } else if (roll < 0.68) {
      const t = target();
      const content = random() < 0.3 ? null : blocks();
      const options = random() < 0.5 ? { via: pick(['full', 'chunks'] as const) } : {};
      steps.push({
        label: `replace ${session} ${JSON.stringify(t)}`,
        run: (s) => s.replaceContent(session, t, content, options),
      });
    } else if (roll < 0.76) {
      const t = target();
      steps.push({
        label: `isRetained ${session} ${JSON.stringify(t)}`,
        run: (s) => s.isRetained(session, t),
      });
    } else if (roll < 0.84) {
      steps.push({ label: `nextMessageId ${session}`, run: (s) => s.nextMessageId(session) });
    } else if (roll < 0.96) {
      const afterSeq = Math.floor(random() * 4);
      const limit = 1 + Math.floor(random() * 3);
      steps.push({
        label: `read ${session} ${afterSeq} ${limit}`,
        run: (s) => s.readMessages(session, { afterSeq, limit }),
      });
    } else {
      steps.push({ label: 'list', run: async (s) => (await s.listSessions()).sessions });
    }
  }
  return steps;
}

async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await run() };
  } catch (error) {
    return { error: (error as { code?: unknown }).code ?? String(error) };
  }
}

/** IDs from a shared script, so both stores are offered the same candidates (with repeats). */
function scripted(seed: number): () => string {
  const random = prng(seed);
  return () => ['m1', 'm2', 'm6', 'm7', 'm8', 'm9'][Math.floor(random() * 6)]! + (random() < 0.5 ? '' : 'x');
}

describe('SqliteHistoryStore compared with MemoryHistoryStore', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'returns the same result or error code for every step of random run %i',
    async (seed) => {
      const memory = new MemoryHistoryStore({ generateMessageId: scripted(seed) });
      const sqlite = SqliteHistoryStore.open(tmp.file(`diff-${seed}.sqlite`), {
        generateMessageId: scripted(seed),
      });
      try {
        for (const [index, step] of randomSteps(seed, 300).entries()) {
          const expected = await outcome(() => step.run(memory));
          const actual = await outcome(() => step.run(sqlite));
          expect(actual, `step ${index}: ${step.label}`).toEqual(expected);
        }
        for (const session of ['s1', 's2', 's3']) {
          expect(await outcome(() => sqlite.readMessages(session, { limit: 4096 }))).toEqual(
            await outcome(() => memory.readMessages(session, { limit: 4096 })),
          );
        }
      } finally {
        await sqlite.close();
      }
    },
  );
});
