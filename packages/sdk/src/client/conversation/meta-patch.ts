import type { StoredMeta } from './types.js';

/**
 * Applies a message-update `_meta` to the stored metadata.
 *
 * Our schema makes an omitted `_meta` and `null` equivalent, so both leave the stored value
 * unchanged (a metadata-only update must not wipe what other extensions attached). An object is
 * merged by top-level key: a key set to `null` is removed, any other value replaces that key
 * (nested objects are not merged). Returns `stored` itself when there is nothing to apply.
 */
export function patchMeta(stored: StoredMeta, patch: unknown): StoredMeta {
  if (patch === undefined || patch === null) return stored;
  // A non-object `_meta` is invalid input; ignoring it keeps the stored value instead of guessing.
  if (typeof patch !== 'object' || Array.isArray(patch)) return stored;
  const next: Record<string, unknown> = stored === null ? {} : { ...stored };
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete next[key];
    // defineProperty, not assignment: a `__proto__` key must be stored as data, never become the prototype.
    else Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.freeze(next);
}
