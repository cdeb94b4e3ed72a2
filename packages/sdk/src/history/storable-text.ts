/**
 * The one rule for strings a session log stores, the same in every store (memory, SQLite,
 * PostgreSQL): a stored string — a cwd, a title, a config key or value, any string or object key
 * inside an update (message text, `_meta`) — is well-formed Unicode without U+0000. PostgreSQL's
 * `text` cannot hold U+0000 and UTF-8 cannot hold an unpaired surrogate (it would come back as
 * U+FFFD), so rather than keep them in one store and change them in another, every store refuses
 * them, and the agent refuses them at the wire (-32602 with the pointer) before they reach one.
 */

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What a stored string must be, for error messages. */
export const STORABLE_TEXT = 'text without U+0000 or unpaired surrogates';

/** Any surrogate: most text has none, and then none can be unpaired. */
const SURROGATE = /[\ud800-\udfff]/;

/** Whether `text` can be stored unchanged by every session log. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && (!SURROGATE.test(text) || !UNPAIRED.test(text));
}

/**
 * Whether every string in `value`, at any depth (object keys too), is storable: the walk of
 * {@link findUnstorableText} without building a pointer per node, which only a refusal needs.
 */
export function allStorable(value: unknown): boolean {
  // One stack for every call (it never yields): a streamed chunk is checked without an allocation.
  const stack = STACK;
  stack.push(value);
  try {
    return walkStorable(stack);
  } finally {
    // Emptied only after a refusal: an array set to length 0 lets go of its backing store.
    if (stack.length > 0) stack.length = 0;
  }
}

/** The stack {@link allStorable} walks with, empty between calls. */
const STACK: unknown[] = [];

/** Pops `stack` until it is empty (true) or holds a string that is not storable (false). */
function walkStorable(stack: unknown[]): boolean {
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (!isStorableText(node)) return false;
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) stack.push(node[i]);
      continue;
    }
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      if (!isStorableText(key)) return false;
      stack.push((node as Record<string, unknown>)[key]);
    }
  }
  return true;
}

const escapeToken = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The JSON pointer (under `pointer`) of the first string in `value`, at any depth, that
 * {@link isStorableText} refuses — of the object itself when one of its keys is refused (a pointer
 * cannot name a key); `undefined` when every string is storable. Walks iteratively: stored values
 * may be nested deeply.
 */
export function findUnstorableText(value: unknown, pointer = ''): string | undefined {
  if (allStorable(value)) return undefined;
  const stack: [unknown, string][] = [[value, pointer]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === 'string') {
      if (!isStorableText(node)) return at;
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    const isArray = Array.isArray(node);
    const entries: [string, unknown][] = isArray
      ? (node as unknown[]).map((item, i) => [String(i), item])
      : Object.entries(node);
    if (!isArray && entries.some(([key]) => !isStorableText(key))) return at;
    // Pushed in reverse, so the first offending string in document order is found first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      stack.push([item, `${at}/${escapeToken(key)}`]);
    }
  }
  return undefined;
}
