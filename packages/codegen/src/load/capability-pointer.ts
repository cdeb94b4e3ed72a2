import { type JsonObject, defNameOfRef, isJsonObject } from '../json.js';

/** Splits an RFC 6901 pointer into unescaped tokens (`/a~1b/c` → `['a/b', 'c']`); undefined if malformed. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/**
 * The subschemas a property named `token` may have inside `schema`: its own `properties`, and
 * those reached through local `$ref`s and the `allOf`/`anyOf`/`oneOf` branches (a nullable
 * `anyOf: [{$ref}, {type: null}]` is followed into the reference).
 */
function propertySchemas(
  defs: JsonObject,
  schema: JsonObject,
  token: string,
  seen: Set<JsonObject>,
): JsonObject[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const found: JsonObject[] = [];
  if (isJsonObject(schema.properties)) {
    const own = schema.properties[token];
    if (isJsonObject(own)) found.push(own);
  }
  const target = defNameOfRef(schema.$ref);
  if (target !== undefined && isJsonObject(defs[target])) {
    found.push(...propertySchemas(defs, defs[target], token, seen));
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (isJsonObject(branch)) found.push(...propertySchemas(defs, branch, token, seen));
    }
  }
  return found;
}

/** The JSON types (other than null) a schema admits, through local `$ref`s and `allOf`/`anyOf`/`oneOf`. */
function valueTypes(defs: JsonObject, schema: JsonObject, seen: Set<JsonObject>, out: Set<string>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const types =
    typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  for (const type of types) if (typeof type === 'string' && type !== 'null') out.add(type);
  if ('const' in schema && typeof schema.const === 'boolean') out.add('boolean');
  const target = defNameOfRef(schema.$ref);
  if (target !== undefined && isJsonObject(defs[target])) valueTypes(defs, defs[target], seen, out);
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) if (isJsonObject(branch)) valueTypes(defs, branch, seen, out);
  }
}

/** A capability pointer followed through a definition: the JSON type of the value it names, or why it does not resolve. */
export type CapabilityTarget = { readonly valueType: string } | { readonly problem: string };

/**
 * Follows a capability pointer through the properties of a definition. Returns the JSON type of
 * the value it names (`object`, `array`, `boolean`, …; `unknown` when the schema admits several)
 * when every token names a property reachable from the previous one, or a sentence naming the
 * first token that does not.
 */
export function resolveCapabilityPointer(
  defs: JsonObject,
  definition: string,
  pointer: string,
): CapabilityTarget {
  const root = defs[definition];
  if (!isJsonObject(root)) return { problem: `"${definition}" is not a definition in $defs` };
  const tokens = pointerTokens(pointer);
  if (tokens === undefined || tokens.length === 0) {
    return { problem: `pointer must be a non-empty RFC 6901 pointer (got ${JSON.stringify(pointer)})` };
  }
  let current: JsonObject[] = [root];
  for (const [index, token] of tokens.entries()) {
    const next = current.flatMap((schema) => propertySchemas(defs, schema, token, new Set()));
    if (next.length === 0) {
      const where = index === 0 ? definition : `${definition} at /${tokens.slice(0, index).join('/')}`;
      return { problem: `pointer ${pointer} does not resolve: ${where} has no property "${token}"` };
    }
    current = next;
  }
  const types = new Set<string>();
  for (const schema of current) valueTypes(defs, schema, new Set(), types);
  return { valueType: types.size === 1 ? [...types][0]! : 'unknown' };
}
