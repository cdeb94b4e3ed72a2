/**
 * Where an agent's resident memory grew between two of its memory answers (bench/agent-memory.ts),
 * per session, as it was before each answer's full GC: V8's young generation (sized by V8 for the
 * allocation rate, up to a fixed cap, whatever the number of sessions), its old generation (what
 * survived, garbage not yet collected included), V8's other spaces (code and the like), and what
 * is outside V8's heap (Node's and libuv's native objects, buffers, the allocator's free lists).
 */
import type { AgentMemory } from './agent-memory.js';

/** Bytes per session, by part; they add up to the RSS growth before the GC. */
export interface RssParts {
  youngGeneration: number;
  oldGeneration: number;
  otherSpaces: number;
  outsideHeap: number;
}

const YOUNG = new Set(['new_space', 'new_large_object_space']);
const OLD = new Set(['old_space', 'large_object_space']);

/** The growth from `before` to `after`, divided by `sessions`; undefined without both breakdowns. */
export function rssParts(
  before: AgentMemory | undefined,
  after: AgentMemory | undefined,
  sessions: number,
): RssParts | undefined {
  const b = before?.beforeGc;
  const a = after?.beforeGc;
  if (b === undefined || a === undefined) return undefined;
  const growth = (names: (name: string) => boolean): number => {
    let bytes = 0;
    for (const name of new Set([...Object.keys(a.spaces), ...Object.keys(b.spaces)]))
      if (names(name)) bytes += (a.spaces[name] ?? 0) - (b.spaces[name] ?? 0);
    return bytes;
  };
  const young = growth((name) => YOUNG.has(name));
  const old = growth((name) => OLD.has(name));
  const other = growth((name) => !YOUNG.has(name) && !OLD.has(name));
  const outside = a.rss - b.rss - young - old - other;
  return {
    youngGeneration: young / sessions,
    oldGeneration: old / sessions,
    otherSpaces: other / sessions,
    outsideHeap: outside / sessions,
  };
}
