/** Any value JSON can carry. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object, as read from a schema file. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for plain JSON objects (not arrays, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Escapes one reference token per RFC 6901 (`~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Builds an RFC 6901 pointer from raw tokens (`['$defs', 'A/B']` → `/$defs/A~1B`). */
export function pointerOf(...tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${escapePointerToken(String(t))}`).join('');
}

/** The definition name a local `#/$defs/<Name>` reference points at, or undefined for any other reference. */
export function defNameOfRef(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return undefined;
  const rest = ref.slice('#/$defs/'.length);
  return rest.includes('/') ? undefined : rest.replaceAll('~1', '/').replaceAll('~0', '~');
}
