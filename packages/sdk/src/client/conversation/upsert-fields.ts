import { patchMeta } from './meta-patch.js';

/** A frozen record of the fields stored for one entity (tool call, terminal, compaction, session info). */
export type StoredFields = Readonly<Record<string, unknown>>;

const EMPTY: StoredFields = Object.freeze({});

/**
 * Applies an upsert to the stored fields by the v2 rules: a key the update omits keeps its stored
 * value, a key set to `null` is cleared (removed), any other value replaces the stored one.
 * `_meta` is merged by top-level key (see {@link patchMeta}). Keys in `skip` are left out (the
 * kind tag, fields the caller keeps elsewhere). Unknown keys are kept like known ones: a newer
 * agent's fields stay visible. Returns a new frozen record; `stored` is never modified.
 */
export function upsertFields(
  stored: StoredFields | null,
  update: Readonly<Record<string, unknown>>,
  skip: ReadonlySet<string>,
): StoredFields {
  const next: Record<string, unknown> = stored === null ? {} : { ...stored };
  for (const key of Object.keys(update)) {
    if (skip.has(key)) continue;
    const value = update[key];
    if (key === '_meta') {
      const meta = patchMeta((next._meta as StoredFields | undefined) ?? null, value);
      if (meta === null) delete next._meta;
      else define(next, '_meta', meta);
    } else if (value === null) delete next[key];
    else if (value !== undefined) define(next, key, value);
  }
  return Object.keys(next).length === 0 ? EMPTY : Object.freeze(next);
}

/** Sets one field as data: a `__proto__` key must be stored as a property, never become the prototype. */
export function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
