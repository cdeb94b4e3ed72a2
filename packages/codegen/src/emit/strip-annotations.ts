import { type JsonObject, type JsonValue, isJsonObject } from '../json.js';

/** Keywords whose value maps names to subschemas (the names are data, not keywords). */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** Keywords that only document: removed before handing schemas to tools that would echo them. */
const DOC_KEYWORDS = new Set(['description', 'title', 'examples', '$comment']);

/**
 * Returns a deep copy of a schema without documentation keywords and `x-` annotations.
 * Emitters add documentation themselves, and compiled validators need not carry it.
 */
export function stripAnnotations(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(stripAnnotations);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (DOC_KEYWORDS.has(key) || key.startsWith('x-')) continue;
    if (NAME_MAPS.has(key) && isJsonObject(child)) {
      out[key] = Object.fromEntries(
        Object.entries(child).map(([name, sub]) => [name, stripAnnotations(sub)]),
      );
    } else if (key === 'const' || key === 'enum' || key === 'default') {
      out[key] = structuredClone(child);
    } else {
      out[key] = stripAnnotations(child);
    }
  }
  return out;
}
