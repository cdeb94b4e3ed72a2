import { type JsonObject, type JsonValue, isJsonObject } from '../json.js';

/** An object field of a mapping entry as a record (empty when absent or not an object). */
export function record<T extends JsonValue>(value: JsonValue | undefined): Record<string, T> {
  return isJsonObject(value) ? (value as Record<string, T>) : {};
}

/** A string field of a mapping row as an optional property (absent when not a string). */
export function optional<K extends string>(entry: JsonObject, key: K): { [P in K]?: string } {
  const value = entry[key];
  return (typeof value === 'string' ? { [key]: value } : {}) as { [P in K]?: string };
}

/** A row's version name: the string, or null for no counterpart. */
export function nameOrNull(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}
