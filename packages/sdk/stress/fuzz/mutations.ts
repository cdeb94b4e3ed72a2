/**
 * Mutations that turn a valid message into the kinds of bad input a peer can send. Each works on
 * the message's JSON text or bytes and never adds a raw newline (one mutated message stays one
 * ndjson line).
 */

/** The classes of damage, reported separately by the fuzzer. */
export const MUTATION_CLASSES = [
  'none',
  'truncation',
  'invalid-utf8',
  'deep-nesting',
  'huge-number',
  'huge-string',
  'duplicate-key',
  'proto-key',
  'wrong-type',
  'batch',
] as const;

/** One mutation class. */
export type MutationClass = (typeof MUTATION_CLASSES)[number];

/** A small deterministic PRNG (mulberry32) so a failing run can be repeated from its seed. */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
}

type Path = (string | number)[];
type Json = unknown;

const RAW = '@@RAW@@';

/** Every path to a value inside `value`, the root excluded. */
function paths(value: Json, prefix: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([...prefix, i]);
      paths(item, [...prefix, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      out.push([...prefix, key]);
      paths((value as Record<string, Json>)[key], [...prefix, key], out);
    }
  }
  return out;
}

function objectPaths(value: Json, prefix: Path = [], out: Path[] = []): Path[] {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) out.push(prefix);
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      objectPaths(child, [...prefix, Array.isArray(value) ? Number(key) : key], out);
    }
  }
  return out;
}

function setAt(root: Json, path: Path, replacement: Json): void {
  let node = root as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  // defineProperty, not assignment: the key may be `__proto__`.
  Object.defineProperty(node, path.at(-1)!, {
    value: replacement,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function getAt(root: Json, path: Path): Json {
  let node = root;
  for (const key of path) node = (node as Record<string | number, Json>)[key];
  return node;
}

function typeOf(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const SAMPLES: Record<string, Json> = {
  null: null,
  boolean: true,
  number: 42,
  string: 'wrong',
  array: [1, 'two'],
  object: { wrong: true },
};

function wrongValue(random: Random, current: Json): Json {
  const others = Object.keys(SAMPLES).filter((type) => type !== typeOf(current));
  return structuredClone(SAMPLES[random.pick(others)]);
}

function deepText(random: Random): string {
  const depth = random.pick([64, 1000, 5000, 20_000, 100_000]);
  return random.next() < 0.5
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
}

const HUGE_NUMBERS = [
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890123456789',
  '-0',
  '9007199254740993',
  '1.7976931348623157e309',
];

function withRaw(message: Record<string, Json>, path: Path, raw: string): string {
  const copy = structuredClone(message);
  setAt(copy, path, RAW);
  return JSON.stringify(copy).replace(`"${RAW}"`, () => raw);
}

function pickPath(random: Random, message: Record<string, Json>): Path {
  return random.pick(paths(message));
}

const INVALID_UTF8 = [
  [0xff],
  [0xc0, 0x80],
  [0x80],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80],
];

/**
 * Applies one mutation of class `cls` to `message` and returns the line's bytes (no newline).
 * `limit` is the receiver's line limit, so huge strings land on both sides of it.
 */
export function mutate(
  random: Random,
  message: Record<string, Json>,
  cls: MutationClass,
  limit: number,
): Buffer {
  const text = JSON.stringify(message);
  switch (cls) {
    case 'none':
      return Buffer.from(text, 'utf8');
    case 'truncation':
      return Buffer.from(text.slice(0, random.int(1, text.length - 1)), 'utf8');
    case 'invalid-utf8': {
      const bytes = Buffer.from(text, 'utf8');
      const at = random.int(0, bytes.length);
      return Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from(random.pick(INVALID_UTF8)),
        bytes.subarray(at),
      ]);
    }
    case 'deep-nesting':
      return Buffer.from(withRaw(message, pickPath(random, message), deepText(random)), 'utf8');
    case 'huge-number':
      return Buffer.from(withRaw(message, pickPath(random, message), random.pick(HUGE_NUMBERS)), 'utf8');
    case 'huge-string': {
      const size = random.pick([limit - text.length - 40, limit + 1, 2 * limit, 4096]);
      const copy = structuredClone(message);
      const strings = paths(copy).filter((path) => typeof getAt(copy, path) === 'string');
      const path = strings.length > 0 ? random.pick(strings) : ['_huge'];
      setAt(
        copy,
        path,
        random.next() < 0.5 ? 'x'.repeat(Math.max(1, size)) : '€'.repeat(Math.max(1, size / 3)),
      );
      return Buffer.from(JSON.stringify(copy), 'utf8');
    }
    case 'duplicate-key': {
      const key = random.pick(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);
      const value = random.pick([
        '"2.0"',
        '"1.0"',
        'null',
        '7',
        `"d${random.int(0, 1e9)}"`,
        '{}',
        '"session/new"',
      ]);
      // Before the original member the original wins; after it the duplicate wins.
      return Buffer.from(
        random.next() < 0.5
          ? `{"${key}":${value},${text.slice(1)}`
          : `${text.slice(0, -1)},"${key}":${value}}`,
        'utf8',
      );
    }
    case 'proto-key': {
      const copy = structuredClone(message);
      const key = random.pick(['__proto__', 'constructor', 'prototype']);
      const payload = random.pick<Json>([
        { polluted: 'yes' },
        { prototype: { polluted: 'yes' } },
        { toString: 'polluted' },
        'polluted',
      ]);
      // Half the time aim at updates and content blocks, whose `_meta` receivers store and merge.
      const all = objectPaths(copy);
      const tagged = all.filter((path) => {
        const node = getAt(copy, path) as Record<string, Json>;
        return 'sessionUpdate' in node || 'type' in node;
      });
      const at = random.pick(tagged.length > 0 && random.next() < 0.5 ? tagged : all);
      if (random.next() < 0.5) {
        // Inside a fresh `_meta`: the one open object every receiver stores and merges.
        const meta = {};
        setAt(meta, [key], structuredClone(payload));
        setAt(copy, [...at, '_meta'], meta);
      } else {
        setAt(copy, [...at, key], structuredClone(payload));
      }
      return Buffer.from(JSON.stringify(copy), 'utf8');
    }
    case 'batch':
      return mutateBatch(random, [message], limit);
    case 'wrong-type': {
      const copy = structuredClone(message);
      const path = pickPath(random, copy);
      setAt(copy, path, wrongValue(random, getAt(copy, path)));
      return Buffer.from(JSON.stringify(copy), 'utf8');
    }
  }
}

/** Replaces raw newlines a mutation may have produced, so the line stays one frame. */
export function oneLine(bytes: Buffer): Buffer {
  if (!bytes.includes(0x0a)) return bytes;
  const copy = Buffer.from(bytes);
  for (let i = 0; i < copy.length; i++) if (copy[i] === 0x0a) copy[i] = 0x20;
  return copy;
}

/**
 * Every single-path wrong-type variant of `message`: for each path (envelope included), each JSON
 * type the value does not have. The systematic counterpart of the random `wrong-type` class.
 */
export function* wrongTypeSweep(message: Record<string, Json>): Generator<Buffer> {
  for (const path of paths(message)) {
    const current = getAt(message, path);
    for (const [type, sample] of Object.entries(SAMPLES)) {
      if (type === typeOf(current)) continue;
      const copy = structuredClone(message);
      setAt(copy, path, structuredClone(sample));
      yield Buffer.from(JSON.stringify(copy), 'utf8');
    }
  }
}

/** The classes a batch entry is damaged with: those that keep it one JSON value. */
const ENTRY_CLASSES: readonly MutationClass[] = [
  'none',
  'none',
  'wrong-type',
  'proto-key',
  'duplicate-key',
  'huge-number',
];

/**
 * A JSON-RPC batch line of `messages` (none gives the empty batch): most entries whole or damaged
 * in ways that keep them JSON, some not objects at all (a number, a string, `null`, a nested
 * batch), and now and then a padding entry that takes the whole line over `limit`.
 */
export function mutateBatch(
  random: Random,
  messages: readonly Record<string, Json>[],
  limit: number,
): Buffer {
  const entries = messages.map((message) => {
    if (random.next() < 0.15) {
      return random.pick(['42', '"entry"', 'null', '[]', `[${JSON.stringify(message)}]`]);
    }
    return mutate(random, message, random.pick(ENTRY_CLASSES), limit).toString('utf8');
  });
  if (messages.length > 0 && random.next() < 0.05) {
    entries.push(JSON.stringify({ jsonrpc: '2.0', method: '_pad', params: { pad: 'p'.repeat(limit) } }));
  }
  return Buffer.from(`[${entries.join(',')}]`, 'utf8');
}
