import { type JsonObject, type JsonValue, defNameOfRef, isJsonObject } from '../json.js';
import type { SchemaView } from './schema-view.js';

/** Keywords that only annotate: a change to them is editorial. */
export const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  '$comment',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'markdownDescription',
]);

/** Convention keywords whose meaning the structural rules already cover, or that methods rules report. */
export const HANDLED_ELSEWHERE = new Set(['x-discriminator', 'x-open-enum', 'x-method', 'x-side']);

/** Lower bounds: a larger value accepts less. */
export const LOWER_BOUNDS = [
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'minItems',
  'minProperties',
  'minContains',
];
/** Upper bounds: a smaller value accepts less. */
export const UPPER_BOUNDS = [
  'maximum',
  'exclusiveMaximum',
  'maxLength',
  'maxItems',
  'maxProperties',
  'maxContains',
];

/** Keywords compared by a dedicated rule below; anything else that differs is reported generically. */
export const STRUCTURAL = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'pattern',
  'format',
  'multipleOf',
  'uniqueItems',
  ...LOWER_BOUNDS,
  ...UPPER_BOUNDS,
]);

/** `true`/`false` schemas as objects; a lone `allOf: [X]` (the official schema's way to annotate a `$ref`) merged into its parent. */
export function normalize(node: JsonValue | undefined): JsonObject | undefined {
  if (node === undefined) return undefined;
  if (node === true) return {};
  if (node === false) return { not: {} };
  if (!isJsonObject(node)) return {};
  const { allOf, ...rest } = node;
  if (Array.isArray(allOf) && allOf.length === 1 && isJsonObject(allOf[0]) && rest.$ref === undefined) {
    return merge(normalize(allOf[0]) ?? {}, rest);
  }
  return node;
}

/** `over` applied on `base` as an `allOf` would: properties and required lists combine, other keywords from `over`. */
export function merge(base: JsonObject, over: JsonObject): JsonObject {
  const merged: JsonObject = { ...base, ...over };
  if (isJsonObject(base.properties) && isJsonObject(over.properties))
    merged.properties = { ...base.properties, ...over.properties };
  if (Array.isArray(base.required) && Array.isArray(over.required))
    merged.required = [...new Set([...base.required, ...over.required])];
  return merged;
}

/** A schema with no assertion keyword: it accepts every value. */
export function isUnconstrained(node: JsonObject): boolean {
  return Object.keys(node).every((k) => ANNOTATIONS.has(k) || k.startsWith('x-'));
}

/** The types a node declares, or undefined when it declares none. */
export function typesOf(node: JsonObject): Set<string> | undefined {
  if (typeof node.type === 'string') return new Set([node.type]);
  if (Array.isArray(node.type)) return new Set(node.type.filter((t): t is string => typeof t === 'string'));
  return undefined;
}

/** Whether `types` accepts every value of type `t` (a number type covers integers). */
export function covers(types: Set<string>, t: string): boolean {
  return types.has(t) || (t === 'integer' && types.has('number'));
}

/** The node with its `$ref` (one level) replaced by the definition it names, the node's own keywords over it. */
export function resolveShallow(view: SchemaView, node: JsonValue): JsonObject {
  const n = normalize(node) ?? {};
  const name = defNameOfRef(n.$ref);
  if (name === undefined) return n;
  const { $ref: _ref, ...rest } = n;
  return merge(normalize(view.defs[name]) ?? {}, rest);
}

/** A schema that accepts null only. */
export function isNull(node: JsonValue): boolean {
  return (
    isJsonObject(node) &&
    node.type === 'null' &&
    Object.keys(node).every((k) => k === 'type' || ANNOTATIONS.has(k))
  );
}

/** A nullable schema split into "null allowed" and the rest: `anyOf: [X, {type: null}]` or `type: [T, "null"]`. */
export function splitNull(node: JsonObject): { nullable: boolean; rest: JsonObject } {
  const list = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (list?.length === 2) {
    const inner = isNull(list[1]!) ? list[0] : isNull(list[0]!) ? list[1] : undefined;
    if (inner !== undefined) {
      const { anyOf: _a, oneOf: _o, ...rest } = node;
      return { nullable: true, rest: merge(normalize(inner) ?? {}, rest) };
    }
  }
  const types = typesOf(node);
  if (types?.has('null') && types.size > 1) {
    const remaining = [...types].filter((t) => t !== 'null');
    return { nullable: true, rest: { ...node, type: remaining.length === 1 ? remaining[0]! : remaining } };
  }
  return { nullable: false, rest: node };
}

/** The types of the values a node fixes with `const` or `enum`. */
export function valueTypes(n: JsonObject): string[] {
  const values = 'const' in n ? [n.const] : Array.isArray(n.enum) ? n.enum : [];
  return values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v));
}
