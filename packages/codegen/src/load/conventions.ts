import { type JsonObject, type JsonValue, defNameOfRef, isJsonObject, pointerOf } from '../json.js';
import type { SchemaProblem } from '../problems.js';
import { resolveCapabilityPointer } from './capability-pointer.js';

const DEF_NAME = /^[A-Z][A-Za-z0-9]*$/;
const DIRECTIONS = new Set(['client_to_agent', 'agent_to_client', 'both']);
const KINDS = new Set(['request', 'notification']);
const EXTENSION_PATTERN = '^_';

/** Keywords whose value is one subschema. */
const SUBSCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
];
/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

function hasDescription(schema: JsonValue | undefined): boolean {
  return isJsonObject(schema) && typeof schema.description === 'string' && schema.description.trim() !== '';
}

/** How one branch of a discriminated union relates to the union's tag. */
export type BranchShape =
  | { readonly kind: 'known'; readonly tagValue: string }
  | { readonly kind: 'extension' }
  | { readonly kind: 'unknown'; readonly excluded: readonly string[] }
  | { readonly kind: 'union'; readonly tagValue: string }
  | { readonly kind: 'invalid'; readonly reason: string };

/**
 * Classifies the definition a union branch references. Shared by the convention checks and the
 * model builder so both read the schema the same way.
 */
export function classifyBranch(
  defs: JsonObject,
  defName: string,
  tag: string,
  seen: Set<string> = new Set(),
): BranchShape {
  const def = defs[defName];
  if (!isJsonObject(def)) return { kind: 'invalid', reason: `references missing definition ${defName}` };
  const tagSchema = isJsonObject(def.properties) ? def.properties[tag] : undefined;
  if (isJsonObject(tagSchema)) {
    const required = Array.isArray(def.required) && def.required.includes(tag);
    if (!required) return { kind: 'invalid', reason: `${defName} must list "${tag}" in required` };
    if (typeof tagSchema.const === 'string') return { kind: 'known', tagValue: tagSchema.const };
    if (tagSchema.type === 'string' && tagSchema.pattern === EXTENSION_PATTERN) return { kind: 'extension' };
    const excluded = isJsonObject(tagSchema.not) ? tagSchema.not.enum : undefined;
    if (
      tagSchema.type === 'string' &&
      Array.isArray(excluded) &&
      excluded.every((v) => typeof v === 'string')
    ) {
      return { kind: 'unknown', excluded: excluded as string[] };
    }
    return {
      kind: 'invalid',
      reason: `${defName}.properties.${tag} must have a string "const", be {"type":"string","not":{"enum":[known tags]}} or {"type":"string","pattern":"^_"}`,
    };
  }
  if (typeof def['x-discriminator'] === 'string' && Array.isArray(def.oneOf) && !seen.has(defName)) {
    seen.add(defName);
    const values = new Set<string>();
    for (const branch of def.oneOf) {
      const inner = isJsonObject(branch) ? defNameOfRef(branch.$ref) : undefined;
      if (inner === undefined)
        return { kind: 'invalid', reason: `${defName} has a branch that is not a local $ref` };
      const shape = classifyBranch(defs, inner, tag, seen);
      if (shape.kind !== 'known') {
        return {
          kind: 'invalid',
          reason: `nested union ${defName}: every branch needs a const "${tag}" (${inner} has none)`,
        };
      }
      values.add(shape.tagValue);
    }
    const [only] = values;
    if (values.size !== 1 || only === undefined) {
      return { kind: 'invalid', reason: `nested union ${defName}: branches must share one "${tag}" value` };
    }
    return { kind: 'union', tagValue: only };
  }
  return { kind: 'invalid', reason: `${defName} has no properties.${tag}` };
}

function checkPropertyDescriptions(
  file: string,
  schema: JsonValue,
  path: (string | number)[],
  out: SchemaProblem[],
): void {
  if (!isJsonObject(schema)) return;
  if (isJsonObject(schema.properties)) {
    for (const [prop, propSchema] of Object.entries(schema.properties)) {
      const at = [...path, 'properties', prop];
      if (!hasDescription(propSchema))
        out.push({ file, pointer: pointerOf(...at), message: 'property has no description' });
      checkPropertyDescriptions(file, propSchema, at, out);
    }
  }
  if (schema.additionalProperties === false) {
    out.push({
      file,
      pointer: pointerOf(...path, 'additionalProperties'),
      message: 'objects are open: additionalProperties must not be false',
    });
  }
  for (const key of SUBSCHEMA_KEYWORDS) {
    if (schema[key] !== undefined) checkPropertyDescriptions(file, schema[key], [...path, key], out);
  }
  for (const key of SUBSCHEMA_LIST_KEYWORDS) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    for (const [i, s] of list.entries()) checkPropertyDescriptions(file, s, [...path, key, i], out);
  }
}

function checkUnion(
  file: string,
  defs: JsonObject,
  name: string,
  def: JsonObject,
  out: SchemaProblem[],
): void {
  const at = (...rest: (string | number)[]) => pointerOf('$defs', name, ...rest);
  const tag = def['x-discriminator'];
  if (typeof tag !== 'string' || tag === '') {
    out.push({ file, pointer: at('x-discriminator'), message: 'x-discriminator must name the tag property' });
    return;
  }
  if (!Array.isArray(def.oneOf) || def.oneOf.length === 0) {
    out.push({ file, pointer: at('oneOf'), message: 'a discriminated union needs a non-empty oneOf' });
    return;
  }
  const owners = new Map<string, number>();
  let extensions = 0;
  let unknownBranch: { index: number; excluded: readonly string[] } | undefined;
  def.oneOf.forEach((branch, i) => {
    const ref = isJsonObject(branch) ? defNameOfRef(branch.$ref) : undefined;
    if (ref === undefined || !isJsonObject(branch) || Object.keys(branch).length !== 1) {
      out.push({
        file,
        pointer: at('oneOf', i),
        message: 'a union branch must be a lone {"$ref": "#/$defs/<Name>"}',
      });
      return;
    }
    const shape = classifyBranch(defs, ref, tag);
    if (shape.kind === 'invalid') {
      out.push({ file, pointer: at('oneOf', i), message: shape.reason });
    } else if (shape.kind === 'extension' || shape.kind === 'unknown') {
      extensions += 1;
      if (extensions > 1) {
        out.push({
          file,
          pointer: at('oneOf', i),
          message: 'a union has at most one extension or unknown branch',
        });
      }
      if (shape.kind === 'unknown') unknownBranch = { index: i, excluded: shape.excluded };
    } else {
      if (shape.tagValue.startsWith('_')) {
        out.push({
          file,
          pointer: at('oneOf', i),
          message: `tag "${shape.tagValue}" overlaps the extension space "^_"`,
        });
      }
      const first = owners.get(shape.tagValue);
      if (first !== undefined) {
        out.push({
          file,
          pointer: at('oneOf', i),
          message: `tag "${shape.tagValue}" is also used by ${at('oneOf', first)}; tags must be disjoint`,
        });
      } else {
        owners.set(shape.tagValue, i);
      }
    }
  });
  if (unknownBranch !== undefined) {
    const known = [...owners.keys()].sort();
    const excluded = [...new Set(unknownBranch.excluded)].sort();
    if (known.join('\u0000') !== excluded.join('\u0000')) {
      out.push({
        file,
        pointer: at('oneOf', unknownBranch.index),
        message: `the unknown branch must exclude exactly the known tags [${known.join(', ')}] (it excludes [${excluded.join(', ')}])`,
      });
    }
  }
}

/** The second branch of a fully open enum: any string (with nothing but annotations besides). */
export function isAnyStringBranch(branch: JsonObject): boolean {
  return (
    branch.type === 'string' &&
    Object.keys(branch).every((key) => key === 'type' || key === 'title' || key === 'description')
  );
}

function checkOpenEnum(file: string, name: string, def: JsonObject, out: SchemaProblem[]): void {
  const pointer = pointerOf('$defs', name);
  const anyOf = def.anyOf;
  const [enumBranch, patternBranch] = Array.isArray(anyOf) ? anyOf : [];
  const ok =
    def.type === 'string' &&
    Array.isArray(anyOf) &&
    anyOf.length === 2 &&
    isJsonObject(enumBranch) &&
    Array.isArray(enumBranch.enum) &&
    enumBranch.enum.every((v) => typeof v === 'string' && !v.startsWith('_')) &&
    isJsonObject(patternBranch) &&
    (patternBranch.pattern === EXTENSION_PATTERN || isAnyStringBranch(patternBranch));
  if (!ok) {
    out.push({
      file,
      pointer,
      message:
        'an open enum must be {"type":"string","anyOf":[{"enum":[known values not starting with _]},{"type":"string"}]} (or {"pattern":"^_"} as the second branch when only extension values are allowed)',
    });
  }
}

function checkMethods(
  file: string,
  defs: JsonObject,
  methods: JsonValue | undefined,
  out: SchemaProblem[],
): void {
  if (methods === undefined) return;
  if (!isJsonObject(methods)) {
    out.push({ file, pointer: '/x-methods', message: 'x-methods must be an object keyed by method name' });
    return;
  }
  for (const [method, info] of Object.entries(methods)) {
    const at = (...rest: string[]) => pointerOf('x-methods', method, ...rest);
    if (!isJsonObject(info)) {
      out.push({ file, pointer: at(), message: 'a method entry must be an object' });
      continue;
    }
    if (typeof info.direction !== 'string' || !DIRECTIONS.has(info.direction)) {
      out.push({
        file,
        pointer: at('direction'),
        message: 'direction must be client_to_agent, agent_to_client or both',
      });
    }
    if (typeof info.kind !== 'string' || !KINDS.has(info.kind)) {
      out.push({ file, pointer: at('kind'), message: 'kind must be request or notification' });
    }
    if (!hasDescription(info))
      out.push({ file, pointer: at('description'), message: 'method has no description' });
    if (typeof info.params !== 'string' || !isJsonObject(defs[info.params])) {
      out.push({
        file,
        pointer: at('params'),
        message: `params must name a definition in $defs (got ${JSON.stringify(info.params)})`,
      });
    }
    if (info.kind === 'request') {
      if (typeof info.result !== 'string' || !isJsonObject(defs[info.result])) {
        out.push({
          file,
          pointer: at('result'),
          message: `result must name a definition in $defs (got ${JSON.stringify(info.result)})`,
        });
      }
    } else if (info.result !== undefined) {
      out.push({ file, pointer: at('result'), message: 'only requests have a result' });
    }
    if (info.capability !== undefined) {
      checkCapability(file, defs, methods, info, at, out);
    }
    if (info.notification !== undefined) checkNotificationForm(file, defs, info, at, out);
  }
}

/** A schema with every `description` removed, to compare what two definitions accept. */
function withoutDescriptions(value: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((v) => withoutDescriptions(v) ?? null);
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([k, v]) =>
      k === 'description' ? [] : [[k, withoutDescriptions(v) ?? null]],
    ),
  );
}

/**
 * Checks a request's `notification`: the same wire name also sent as a notification (`mcp/message`
 * the other way; a wrapper such as `proxy/successor` the same way). It has a direction, a
 * description, and params that accept exactly what the request's params accept — validators look
 * params up by wire name, so one definition must serve both.
 */
function checkNotificationForm(
  file: string,
  defs: JsonObject,
  info: JsonObject,
  at: (...rest: string[]) => string,
  out: SchemaProblem[],
): void {
  const form = info.notification;
  if (!isJsonObject(form) || info.kind !== 'request') {
    out.push({
      file,
      pointer: at('notification'),
      message: 'notification must be an object {direction, params, description} on a request',
    });
    return;
  }
  if (typeof form.direction !== 'string' || !DIRECTIONS.has(form.direction)) {
    out.push({
      file,
      pointer: at('notification', 'direction'),
      message: 'direction must be client_to_agent, agent_to_client or both',
    });
  }
  if (!hasDescription(form))
    out.push({
      file,
      pointer: at('notification', 'description'),
      message: 'notification has no description',
    });
  const params = typeof form.params === 'string' ? defs[form.params] : undefined;
  if (!isJsonObject(params)) {
    out.push({
      file,
      pointer: at('notification', 'params'),
      message: `params must name a definition in $defs (got ${JSON.stringify(form.params)})`,
    });
    return;
  }
  const request = typeof info.params === 'string' ? defs[info.params] : undefined;
  const shape = (def: JsonValue | undefined) =>
    isJsonObject(def) ? JSON.stringify(withoutDescriptions({ ...def, 'x-unstable': null })) : '';
  if (shape(params) !== shape(request)) {
    out.push({
      file,
      pointer: at('notification', 'params'),
      message: `${String(form.params)} must accept exactly what ${String(info.params)} accepts (params are validated by wire name)`,
    });
  }
}

/**
 * Checks a method's `capability`: `in` names a definition, `pointer` resolves within it, it has
 * a description, and when `in` is an initialize message it is the receiving side's (the agent's
 * result for a method the client sends, the client's params for one the agent sends).
 */
function checkCapability(
  file: string,
  defs: JsonObject,
  methods: JsonObject,
  info: JsonObject,
  at: (...rest: string[]) => string,
  out: SchemaProblem[],
): void {
  const capability = info.capability;
  if (!isJsonObject(capability)) {
    out.push({
      file,
      pointer: at('capability'),
      message: 'capability must be an object {in, pointer, description} (omit it for a baseline method)',
    });
    return;
  }
  if (info.direction === 'both') {
    out.push({
      file,
      pointer: at('capability'),
      message: "a method sent in both directions cannot be gated by one side's capability",
    });
  }
  if (!hasDescription(capability)) {
    out.push({ file, pointer: at('capability', 'description'), message: 'capability has no description' });
  }
  if (typeof capability.in !== 'string' || !isJsonObject(defs[capability.in])) {
    out.push({
      file,
      pointer: at('capability', 'in'),
      message: `in must name a definition in $defs (got ${JSON.stringify(capability.in)})`,
    });
    return;
  }
  if (typeof capability.pointer !== 'string') {
    out.push({ file, pointer: at('capability', 'pointer'), message: 'pointer must be a string' });
    return;
  }
  const target = resolveCapabilityPointer(defs, capability.in, capability.pointer);
  if ('problem' in target) out.push({ file, pointer: at('capability', 'pointer'), message: target.problem });
  const initialize = methods.initialize;
  if (isJsonObject(initialize)) {
    const wrongSide =
      (info.direction === 'client_to_agent' && capability.in === initialize.params) ||
      (info.direction === 'agent_to_client' && capability.in === initialize.result);
    if (wrongSide) {
      out.push({
        file,
        pointer: at('capability', 'in'),
        message: `${capability.in} is the sender's side of initialize; a method is gated by its receiver's capabilities`,
      });
    }
  }
}

/**
 * Checks the conventions of schema/README.md that code generation relies on. Assumes the
 * schema already passed meta-validation.
 */
export function checkConventions(schema: JsonObject, file: string): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const defs = schema.$defs;
  if (!isJsonObject(defs))
    return [{ file, pointer: '/$defs', message: 'the schema must keep its definitions in $defs' }];
  for (const [name, def] of Object.entries(defs)) {
    const pointer = pointerOf('$defs', name);
    if (!DEF_NAME.test(name)) out.push({ file, pointer, message: 'definition names are PascalCase' });
    if (!isJsonObject(def)) {
      out.push({ file, pointer, message: 'a definition must be a schema object' });
      continue;
    }
    if (!hasDescription(def)) out.push({ file, pointer, message: 'definition has no description' });
    checkPropertyDescriptions(file, def, ['$defs', name], out);
    if (def['x-discriminator'] !== undefined) checkUnion(file, defs, name, def, out);
    if (def['x-discriminator'] !== undefined && isJsonObject(defs[`Known${name}`])) {
      out.push({
        file,
        pointer: pointerOf('$defs', `Known${name}`),
        message: `the name Known${name} is reserved for the known-variant type of the union ${name}`,
      });
    }
    if (def['x-open-enum'] !== undefined) checkOpenEnum(file, name, def, out);
    if (def['x-unstable'] !== undefined && def['x-unstable'] !== true)
      out.push({ file, pointer: pointerOf('$defs', name, 'x-unstable'), message: 'x-unstable must be true' });
  }
  checkMethods(file, defs, schema['x-methods'], out);
  return out;
}
