import { HistoryStoreError } from './errors.js';

/**
 * The `listSessions` cursor every session log issues and reads — memory, SQLite and PostgreSQL
 * alike, so a cursor means the same in every store and a client cannot tell them apart. A cursor
 * is the creation ordinal of the last session of a page, a positive safe integer, written in
 * canonical decimal. It is opaque to clients: {@link decodeListCursor} accepts exactly the text
 * {@link encodeListCursor} produces and nothing that merely reads as the same number (`"007"`,
 * `"+7"`, `" 7 "`, `"7.0"`, `"0x7"`, `"7e0"`).
 */
export function encodeListCursor(ordinal: number): string {
  if (!Number.isSafeInteger(ordinal) || ordinal < 1) {
    throw new RangeError(`a list cursor is a positive safe integer ordinal, not ${ordinal}`);
  }
  return String(ordinal);
}

/**
 * The ordinal a `listSessions` cursor stands for: 0 (before the first session) when there is no
 * cursor (`undefined` or `null`). Any string {@link encodeListCursor} would not have produced —
 * the empty string included — is `invalid_argument` at `/cursor`.
 */
export function decodeListCursor(cursor: string | null | undefined): number {
  if (cursor === undefined || cursor === null) return 0;
  const ordinal = /^[1-9][0-9]{0,15}$/.test(cursor) ? Number(cursor) : Number.NaN;
  if (!Number.isSafeInteger(ordinal) || encodeListCursor(ordinal) !== cursor) {
    throw new HistoryStoreError(
      'invalid_argument',
      `/cursor: expected a cursor from a previous page, got ${JSON.stringify(cursor.slice(0, 64))}`,
      { pointer: '/cursor' },
    );
  }
  return ordinal;
}
