import type { StoredMeta } from './types.js';

/**
 * Applies a message-update `_meta` to the stored metadata.
 *
 * The rule (the same patch rule v2 uses for message upserts): an omitted `_meta` leaves the stored
 * value unchanged, `null` clears it, and an object patches it by top-level key — a key set to `null`
 * is removed, any other value replaces that key (nested objects are not merged).
 * Returns the previous object itself when nothing changed, so callers can skip change reports.
 */
export function patchMeta(stored: StoredMeta, patch: unknown): StoredMeta {
  if (patch === undefined) return stored;
  if (patch === null) return null;
  // A non-object `_meta` is invalid input; ignoring it keeps the stored value instead of guessing.
  if (typeof patch !== 'object' || Array.isArray(patch)) return stored;
  const next: Record<string, unknown> = stored === null ? {} : { ...stored };
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return Object.freeze(next);
}
