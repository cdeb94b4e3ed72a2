import { dirname, resolve } from 'node:path';
import { type JsonObject, type JsonValue, isJsonObject, pointerOf } from '../json.js';
import { createStrictAjv } from '../load/ajv.js';
import { resolveCapabilityPointer } from '../load/capability-pointer.js';
import { displayPath } from '../load/display-path.js';
import { readJsonFile } from '../load/load-schema.js';
import type { SchemaModel } from '../model/model.js';
import type { SchemaProblem } from '../problems.js';
import { type ObjectShape, objectShape } from './compat-fields.js';

/** Which way a converter goes: `toV2` turns a v1 value into v2, `toV1` the reverse. */
export type CompatDirection = 'toV1' | 'toV2';

/** How one pair of definitions converts (see schema/compat/mapping.schema.json). */
export type ConversionKind = 'object' | 'union' | 'variant' | 'enum' | 'identity' | 'custom';

/** The extra argument a custom converter takes in one direction. */
export interface ContextModel {
  /** The parameter name. */
  readonly name: string;
  /** Which schema defines its type. */
  readonly version: 'v1' | 'v2';
  /** The definition it is, or whose readonly list it is. */
  readonly definition: string;
  readonly array: boolean;
  /** What the caller passes. */
  readonly description: string;
}

/** One method of either version and its counterpart (null: none). */
export interface MethodMappingModel {
  readonly v1: string | null;
  readonly v2: string | null;
  /** The conversion of the params, by name. */
  readonly params?: string;
  /** The conversion of the result, by name. */
  readonly result?: string;
  readonly lossy?: string;
  readonly note?: string;
}

/** One session/update kind of either version and its counterpart (null: none). */
export interface UpdateMappingModel {
  readonly v1: string | null;
  readonly v2: string | null;
  /** The conversion of the update variant, by name. */
  readonly conversion?: string;
  /** The hand-written v2 → v1 converter of the v2 kind, by name (for more than one conversion). */
  readonly converterToV1?: string;
  /** The hand-written v1 → v2 converter of the v1 kind, by name (for what needs the bridge's session). */
  readonly converterToV2?: string;
  /** Pointer into the v1 ClientCapabilities: sent only to a v1 client that advertised it. */
  readonly v1Capability?: string;
  /** Without a v1 counterpart: the v1 kinds the converterToV1 sends it as. */
  readonly sentAsV1?: readonly string[];
  readonly lossy?: string;
  readonly note?: string;
}

/** How one v2 session/update kind reaches a v1 client, as the update table declares it. */
export interface UpdateToV1Model {
  /** The v2 kind. */
  readonly v2: string;
  /** The v1 kinds it may become (none when it has no v1 form). */
  readonly v1: readonly string[];
  /** The hand-written converter, when there is one. */
  readonly converter?: string;
  /** The generated conversion that translates it, when there is no hand-written converter. */
  readonly conversion?: string;
  /** The v1 client capability it needs. */
  readonly v1Capability?: string;
  /** Why it has no v1 form (reported as the loss), when it has neither converter nor conversion. */
  readonly lossy?: string;
}

/** How one v1 session/update kind reaches a v2 client, as the update table declares it. */
export interface UpdateToV2Model {
  /** The v1 kind. */
  readonly v1: string;
  /** The v2 kinds it may become (none when it has no v2 form). */
  readonly v2: readonly string[];
  /** The hand-written converter, when there is one. */
  readonly converter?: string;
  /** The generated conversion that translates it, when there is no hand-written converter. */
  readonly conversion?: string;
  /** Why it has no v2 form (reported as the loss), when it has neither converter nor conversion. */
  readonly lossy?: string;
}

/** Per-direction settings of an object conversion. */
export interface DirectionSettings {
  /** Source fields deliberately not carried over. */
  readonly drop: readonly string[];
  /** Values for required target fields the source lacks. */
  readonly defaults: Readonly<Record<string, JsonValue>>;
  /** Target fields that always get this value. */
  readonly set: Readonly<Record<string, JsonValue>>;
  /** Enum source value → target value. */
  readonly values: Readonly<Record<string, string>>;
  /** Source fields whose out-of-bounds values are omitted instead of copied. */
  readonly omitInvalid: readonly string[];
  /** Why this direction may lose information, if it can. */
  readonly lossy?: string;
  /** The extra argument of a custom converter in this direction. */
  readonly context?: ContextModel;
}

/** One checked entry of the mapping. */
export interface ConversionModel {
  readonly name: string;
  readonly kind: ConversionKind;
  /** v1 definition name. */
  readonly v1: string;
  /** v2 definition name. */
  readonly v2: string;
  readonly directions: readonly CompatDirection[];
  /** v1 field → v2 field. */
  readonly rename: Readonly<Record<string, string>>;
  readonly toV1: DirectionSettings;
  readonly toV2: DirectionSettings;
  /** `variant` only: the v2 union variant the v1 object corresponds to. */
  readonly variant?: string;
  readonly note?: string;
}

/** The mapping with both schema models, ready for the converter emitter. */
export interface CompatModel {
  /** The mapping file as shown to people. */
  readonly source: string;
  readonly v1: SchemaModel;
  readonly v2: SchemaModel;
  readonly conversions: readonly ConversionModel[];
  /** The method table, when the mapping declares one (every method of both versions). */
  readonly methods: readonly MethodMappingModel[];
  /** The session/update kind table, when the mapping declares one (every kind of both versions). */
  readonly updates: readonly UpdateMappingModel[];
  /** Every v2 session/update kind and how it reaches v1, in v2 schema order (from `updates`). */
  readonly updatesToV1: readonly UpdateToV1Model[];
  /** Every v1 session/update kind and how it reaches v2, in v1 schema order (from `updates`). */
  readonly updatesToV2: readonly UpdateToV2Model[];
}

function record<T extends JsonValue>(value: JsonValue | undefined): Record<string, T> {
  return isJsonObject(value) ? (value as Record<string, T>) : {};
}

function settings(entry: JsonObject, direction: CompatDirection): DirectionSettings {
  const pick = (key: string): JsonValue | undefined => {
    const group = entry[key];
    return isJsonObject(group) ? group[direction] : undefined;
  };
  const drop = pick('drop');
  const lossy = pick('lossy');
  const omit = pick('omitInvalid');
  const context = pick('context');
  const strings = (list: JsonValue | undefined): string[] =>
    Array.isArray(list) ? list.filter((d): d is string => typeof d === 'string') : [];
  const base = {
    drop: strings(drop),
    omitInvalid: strings(omit),
    ...(isJsonObject(context)
      ? {
          context: {
            name: String(context.name),
            version: context.version === 'v1' ? ('v1' as const) : ('v2' as const),
            definition: String(context.definition),
            array: context.array === true,
            description: String(context.description),
          },
        }
      : {}),
    defaults: record<JsonValue>(pick('defaults')),
    set: record<JsonValue>(pick('set')),
    values: record<string>(pick('values')),
  };
  return typeof lossy === 'string' ? { ...base, lossy } : base;
}

/** Reads the mapping file and validates it against the JSON Schema its `$schema` names. */
export function readMapping(path: string): { mapping?: JsonObject; problems: SchemaProblem[] } {
  const file = displayPath(path);
  const read = readJsonFile(path, file);
  if (read.problems.length > 0) return { problems: read.problems };
  if (!isJsonObject(read.value) || typeof read.value.$schema !== 'string') {
    return {
      problems: [{ file, pointer: '/$schema', message: 'the mapping must name its JSON Schema in $schema' }],
    };
  }
  const schemaPath = resolve(dirname(resolve(path)), read.value.$schema);
  const schema = readJsonFile(schemaPath);
  if (schema.problems.length > 0) return { problems: schema.problems };
  const ajv = createStrictAjv();
  const validate = ajv.compile(schema.value as JsonObject);
  if (!validate(read.value)) {
    return {
      problems: (validate.errors ?? []).map((e) => ({
        file,
        pointer:
          e.keyword === 'required'
            ? `${e.instancePath}/${String((e.params as { missingProperty: unknown }).missingProperty)}`
            : e.instancePath,
        message: `${e.message ?? 'is invalid'} (against ${displayPath(schemaPath)}${e.schemaPath.slice(1)})`,
      })),
    };
  }
  return { mapping: read.value, problems: [] };
}

function checkObject(
  conversion: ConversionModel,
  source: ObjectShape,
  target: ObjectShape,
  direction: CompatDirection,
  problem: (message: string) => void,
): void {
  const s = conversion[direction];
  const toTarget = (field: string): string =>
    direction === 'toV2'
      ? (conversion.rename[field] ?? field)
      : (Object.entries(conversion.rename).find(([, v2]) => v2 === field)?.[0] ?? field);
  const carried = new Set<string>();
  for (const field of source.fields.keys()) {
    if (field === '_meta' || s.drop.includes(field)) continue;
    const mapped = toTarget(field);
    if (!target.fields.has(mapped) && !(mapped in s.set)) {
      problem(
        `${direction}: source field ${field} has no target field ${mapped}; rename it or list it in drop.${direction}`,
      );
    }
    carried.add(mapped);
  }
  for (const field of s.drop) {
    if (!source.fields.has(field))
      problem(`drop.${direction} names ${field}, which the source definition lacks`);
  }
  for (const field of s.omitInvalid) {
    const target_ = target.fields.get(toTarget(field));
    if (!source.fields.has(field) || target_ === undefined)
      problem(`omitInvalid.${direction} names ${field}, which the source or target definition lacks`);
    else if (target_.required)
      problem(
        `omitInvalid.${direction}: target field ${toTarget(field)} is required, so it cannot be omitted`,
      );
    else if (target_.minimum === undefined && target_.maximum === undefined)
      problem(`omitInvalid.${direction}: target field ${toTarget(field)} has no minimum or maximum to check`);
  }
  for (const [field, shape] of target.fields) {
    if (!shape.required || shape.constValue !== undefined || field in s.set || field in s.defaults) continue;
    const back =
      direction === 'toV2'
        ? (Object.entries(conversion.rename).find(([, v2]) => v2 === field)?.[0] ?? field)
        : (conversion.rename[field] ?? field);
    const from = source.fields.get(back);
    if (from === undefined || !from.required || from.nullable) {
      problem(
        `${direction}: target field ${field} is required but the source may lack it; give defaults.${direction}.${field}`,
      );
    }
  }
}

/**
 * Checks a parsed mapping against both schema models and builds the conversion list. Every
 * problem is collected (file + JSON pointer), none is fatal on its own.
 */
export function buildCompatModel(
  mapping: JsonObject,
  file: string,
  v1: SchemaModel,
  v2: SchemaModel,
): { model?: CompatModel; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  const conversions: ConversionModel[] = [];
  const entries = Array.isArray(mapping.conversions) ? mapping.conversions : [];
  const defined = (model: SchemaModel, name: string) => model.definitions.some((d) => d.name === name);
  const names = new Set<string>();
  entries.forEach((raw, index) => {
    if (!isJsonObject(raw)) return;
    const problem = (message: string) =>
      problems.push({ file, pointer: pointerOf('conversions', index), message });
    const name = String(raw.name);
    if (names.has(name)) problem(`duplicate conversion name ${name}`);
    names.add(name);
    const conversion: ConversionModel = {
      name,
      kind: raw.kind as ConversionKind,
      v1: typeof raw.v1 === 'string' ? raw.v1 : name,
      v2: typeof raw.v2 === 'string' ? raw.v2 : name,
      directions: Array.isArray(raw.directions) ? (raw.directions as CompatDirection[]) : ['toV2', 'toV1'],
      rename: record<string>(raw.rename),
      toV1: settings(raw, 'toV1'),
      toV2: settings(raw, 'toV2'),
      ...(typeof raw.note === 'string' ? { note: raw.note } : {}),
      ...(typeof raw.variant === 'string' ? { variant: raw.variant } : {}),
    };
    if (!defined(v1, conversion.v1)) problem(`v1 definition ${conversion.v1} does not exist in ${v1.source}`);
    if (!defined(v2, conversion.v2)) problem(`v2 definition ${conversion.v2} does not exist in ${v2.source}`);
    if (!defined(v1, conversion.v1) || !defined(v2, conversion.v2)) return;
    if (conversion.kind === 'enum') {
      const e1 = v1.openEnums.find((e) => e.name === conversion.v1);
      const e2 = v2.openEnums.find((e) => e.name === conversion.v2);
      if (!e1 || !e2) problem('enum conversions need an open enum (x-open-enum) on both sides');
      else {
        for (const [direction, from, to] of [
          ['toV2', e1, e2],
          ['toV1', e2, e1],
        ] as const) {
          for (const value of from.known) {
            const mapped = conversion[direction].values[value] ?? value;
            if (!to.known.includes(mapped)) {
              problem(
                `${direction}: value ${JSON.stringify(value)} has no counterpart; add values.${direction}`,
              );
            }
          }
        }
      }
    }
    if (conversion.kind === 'union') {
      const u1 = v1.unions.find((u) => u.name === conversion.v1);
      const u2 = v2.unions.find((u) => u.name === conversion.v2);
      if (!u1 || !u2) problem('union conversions need a discriminated union (x-discriminator) on both sides');
    }
    for (const direction of ['toV1', 'toV2'] as const) {
      const context = conversion[direction].context;
      if (context === undefined) continue;
      if (conversion.kind !== 'custom')
        problem(`context.${direction}: only custom conversions take a context`);
      if (!defined(context.version === 'v1' ? v1 : v2, context.definition))
        problem(`context.${direction}: ${context.version} definition ${context.definition} does not exist`);
    }
    if (conversion.kind === 'variant') {
      const u2 = v2.unions.find((u) => u.name === conversion.v2);
      if (!u2) problem('variant conversions need a discriminated union (x-discriminator) on the v2 side');
      else if (!u2.variants.some((v) => v.definition === conversion.variant))
        problem(
          `variant ${String(conversion.variant)} is not a known variant of the v2 union ${conversion.v2}`,
        );
    }
    if (conversion.kind === 'object') {
      const s1 = objectShape(v1, conversion.v1);
      const s2 = objectShape(v2, conversion.v2);
      if (conversion.directions.includes('toV2')) checkObject(conversion, s1, s2, 'toV2', problem);
      if (conversion.directions.includes('toV1')) checkObject(conversion, s2, s1, 'toV1', problem);
    }
    conversions.push(conversion);
  });
  // Union variants are converted by the conversion that pairs them; each must exist.
  for (const conversion of conversions.filter((c) => c.kind === 'union')) {
    const u1 = v1.unions.find((u) => u.name === conversion.v1);
    const u2 = v2.unions.find((u) => u.name === conversion.v2);
    if (!u1 || !u2) continue;
    for (const variant of u1.variants) {
      const other = u2.variants.find((v) => v.tagValue === variant.tagValue);
      const paired = conversions.some((c) => c.v1 === variant.definition && c.v2 === other?.definition);
      if (!other || !paired) {
        problems.push({
          file,
          pointer: pointerOf('conversions', conversions.indexOf(conversion)),
          message: `union ${conversion.name}: variant ${variant.tagValue} needs a conversion between v1 ${variant.definition} and v2 ${other?.definition ?? '(missing)'}`,
        });
      }
    }
  }
  // A variant conversion delegates to the object conversion between the v1 object and the variant.
  for (const conversion of conversions.filter((c) => c.kind === 'variant')) {
    if (
      !conversions.some((c) => c.v1 === conversion.v1 && c.v2 === conversion.variant && c.kind !== 'variant')
    ) {
      problems.push({
        file,
        pointer: pointerOf('conversions', conversions.indexOf(conversion)),
        message: `variant ${conversion.name}: needs a conversion between v1 ${conversion.v1} and v2 ${String(conversion.variant)}`,
      });
    }
  }
  const methods = checkMethodTable(mapping, file, v1, v2, conversions, problems);
  const updates = checkUpdateTable(mapping, file, v1, v2, conversions, problems);
  const models = { v1, v2 };
  const updatesToV1: UpdateToV1Model[] = updateRoutes(
    'toV1',
    updates,
    file,
    models,
    conversions,
    problems,
  ).map(({ from, to, ...rest }) => ({ v2: from, v1: to, ...rest }));
  // A row already reported for v2 → v1 is not reported again for v1 → v2: one problem per row.
  const reverse: SchemaProblem[] = [];
  const updatesToV2: UpdateToV2Model[] = updateRoutes(
    'toV2',
    updates,
    file,
    models,
    conversions,
    reverse,
  ).map(({ from, to, v1Capability: _, ...rest }) => ({ v1: from, v2: to, ...rest }));
  problems.push(...reverse.filter((r) => !problems.some((p) => p.pointer === r.pointer)));
  return problems.length > 0
    ? { problems }
    : { model: { source: file, v1, v2, conversions, methods, updates, updatesToV1, updatesToV2 }, problems };
}

function optional<K extends string>(entry: JsonObject, key: K): { [P in K]?: string } {
  const value = entry[key];
  return (typeof value === 'string' ? { [key]: value } : {}) as { [P in K]?: string };
}

function nameOrNull(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** Checks the `methods` table: names exist, conversions exist, every method of both versions is listed. */
function checkMethodTable(
  mapping: JsonObject,
  file: string,
  v1: SchemaModel,
  v2: SchemaModel,
  conversions: readonly ConversionModel[],
  problems: SchemaProblem[],
): MethodMappingModel[] {
  if (!Array.isArray(mapping.methods)) return [];
  const out: MethodMappingModel[] = [];
  mapping.methods.forEach((raw, index) => {
    if (!isJsonObject(raw)) return;
    const problem = (message: string) =>
      problems.push({ file, pointer: pointerOf('methods', index), message });
    const entry: MethodMappingModel = {
      v1: nameOrNull(raw.v1),
      v2: nameOrNull(raw.v2),
      ...optional(raw, 'params'),
      ...optional(raw, 'result'),
      ...optional(raw, 'lossy'),
      ...optional(raw, 'note'),
    };
    const m1 = v1.methods.find((m) => m.name === entry.v1);
    const m2 = v2.methods.find((m) => m.name === entry.v2);
    if (entry.v1 !== null && m1 === undefined)
      problem(`v1 method ${entry.v1} does not exist in ${v1.source}`);
    if (entry.v2 !== null && m2 === undefined)
      problem(`v2 method ${entry.v2} does not exist in ${v2.source}`);
    if ((entry.v1 === null || entry.v2 === null) && entry.lossy === undefined)
      problem('a method without a counterpart needs lossy: why it has none');
    for (const key of ['params', 'result'] as const) {
      const name = entry[key];
      if (name === undefined) continue;
      const c = conversions.find((x) => x.name === name);
      if (c === undefined) problem(`${key} names the conversion ${name}, which does not exist`);
      else if (m1 !== undefined && m2 !== undefined && (c.v1 !== m1[key] || c.v2 !== m2[key]))
        problem(
          `${key}: conversion ${name} pairs v1 ${c.v1} and v2 ${c.v2}, but the methods' ${key} are ${String(m1[key])} and ${String(m2[key])}`,
        );
    }
    out.push(entry);
  });
  for (const [version, model] of [
    ['v1', v1],
    ['v2', v2],
  ] as const) {
    for (const method of model.methods) {
      if (!out.some((e) => e[version] === method.name))
        problems.push({
          file,
          pointer: '/methods',
          message: `${version} method ${method.name} is not listed; add it with its counterpart (or null and why)`,
        });
    }
  }
  return out;
}

/** The tag values of a version's SessionUpdate union. */
function updateKinds(model: SchemaModel): string[] {
  return model.unions.find((u) => u.name === 'SessionUpdate')?.variants.map((v) => v.tagValue) ?? [];
}

/** Checks the `updates` table: kinds exist, conversions exist, every kind of both versions is listed. */
function checkUpdateTable(
  mapping: JsonObject,
  file: string,
  v1: SchemaModel,
  v2: SchemaModel,
  conversions: readonly ConversionModel[],
  problems: SchemaProblem[],
): UpdateMappingModel[] {
  if (!Array.isArray(mapping.updates)) return [];
  const kinds = { v1: updateKinds(v1), v2: updateKinds(v2) };
  const out: UpdateMappingModel[] = [];
  mapping.updates.forEach((raw, index) => {
    if (!isJsonObject(raw)) return;
    const problem = (message: string) =>
      problems.push({ file, pointer: pointerOf('updates', index), message });
    const entry: UpdateMappingModel = {
      v1: nameOrNull(raw.v1),
      v2: nameOrNull(raw.v2),
      ...optional(raw, 'conversion'),
      ...optional(raw, 'converterToV1'),
      ...optional(raw, 'converterToV2'),
      ...optional(raw, 'v1Capability'),
      ...(Array.isArray(raw.sentAsV1)
        ? { sentAsV1: raw.sentAsV1.filter((k): k is string => typeof k === 'string') }
        : {}),
      ...optional(raw, 'lossy'),
      ...optional(raw, 'note'),
    };
    for (const kind of entry.sentAsV1 ?? [])
      if (!kinds.v1.includes(kind)) problem(`sentAsV1: v1 session update kind ${kind} does not exist`);
    if (entry.sentAsV1 !== undefined && (entry.v1 !== null || entry.converterToV1 === undefined))
      problem('sentAsV1 belongs on a row without a v1 counterpart that names a converterToV1');
    if (entry.v1Capability !== undefined) {
      const target = resolveCapabilityPointer(
        v1.schema.$defs as JsonObject,
        'ClientCapabilities',
        entry.v1Capability,
      );
      if ('problem' in target) problem(`v1Capability: ${target.problem}`);
    }
    for (const version of ['v1', 'v2'] as const) {
      const kind = entry[version];
      if (kind !== null && !kinds[version].includes(kind))
        problem(`${version} session update kind ${kind} does not exist`);
    }
    if ((entry.v1 === null || entry.v2 === null) && entry.lossy === undefined)
      problem('an update kind without a counterpart needs lossy: why it has none');
    if (entry.conversion !== undefined && !conversions.some((c) => c.name === entry.conversion))
      problem(`conversion ${entry.conversion} does not exist`);
    out.push(entry);
  });
  for (const version of ['v1', 'v2'] as const) {
    for (const kind of kinds[version]) {
      if (!out.some((e) => e[version] === kind))
        problems.push({
          file,
          pointer: '/updates',
          message: `${version} session update kind ${kind} is not listed; add it with its counterpart (or null and why)`,
        });
    }
  }
  return out;
}

/** The definition of one kind of a version's SessionUpdate union. */
function updateDefinition(model: SchemaModel, kind: string): string | undefined {
  return model.unions.find((u) => u.name === 'SessionUpdate')?.variants.find((v) => v.tagValue === kind)
    ?.definition;
}

/** How one kind of one version reaches the other version (either direction's model, before naming). */
export interface UpdateRoute {
  /** The kind of the source version. */
  readonly from: string;
  /** The kinds of the other version it may become. */
  readonly to: readonly string[];
  readonly converter?: string;
  readonly conversion?: string;
  readonly v1Capability?: string;
  readonly lossy?: string;
}

/**
 * How each kind of the source version reaches the other (`toV1`: every v2 kind; `toV2`: every v1
 * kind), from the update table: its hand-written converter (`converterToV1` / `converterToV2`;
 * every row of the kind names the same one), else the conversion of its one row with a
 * counterpart (which must convert in that direction between the two update variants), else — no
 * counterpart — a loss with the row's lossy text. A kind that becomes several kinds, or a
 * counterpart without a conversion, needs a converter: anything else is a problem, so no kind is
 * ever dropped without a word. Only v2 → v1 has client capabilities (`v1Capability`) and kinds sent
 * as others (`sentAsV1`).
 */
function updateRoutes(
  direction: CompatDirection,
  updates: readonly UpdateMappingModel[],
  file: string,
  models: { readonly v1: SchemaModel; readonly v2: SchemaModel },
  conversions: readonly ConversionModel[],
  problems: SchemaProblem[],
): UpdateRoute[] {
  if (updates.length === 0) return [];
  const [from, to] = direction === 'toV1' ? (['v2', 'v1'] as const) : (['v1', 'v2'] as const);
  const converterKey = direction === 'toV1' ? 'converterToV1' : 'converterToV2';
  const out: UpdateRoute[] = [];
  for (const kind of updateKinds(models[from])) {
    const rows = updates.filter((u) => u[from] === kind);
    const index = updates.findIndex((u) => u[from] === kind);
    const problem = (message: string) =>
      problems.push({
        file,
        pointer: pointerOf('updates', index),
        message: `${from} kind ${kind}: ${message}`,
      });
    if (rows.length === 0) continue; // reported by checkUpdateTable
    const targets = [
      ...new Set(
        rows.flatMap((r) => {
          const target = r[to];
          if (target !== null) return [target];
          return direction === 'toV1' ? (r.sentAsV1 ?? []) : [];
        }),
      ),
    ];
    const converters = [...new Set(rows.map((r) => r[converterKey]).filter((c) => c !== undefined))];
    const capabilities =
      direction === 'toV1'
        ? [...new Set(rows.map((r) => r.v1Capability).filter((c) => c !== undefined))]
        : [];
    if (converters.length > 1) problem(`its rows name different ${converterKey}s (${converters.join(', ')})`);
    if (capabilities.length > 1)
      problem(`its rows name different v1Capabilities (${capabilities.join(', ')})`);
    if (rows.some((r) => r[converterKey] === undefined) && converters.length > 0)
      problem(`every row of a kind with a ${converterKey} names it`);
    const base = {
      from: kind,
      to: targets,
      ...(capabilities[0] === undefined ? {} : { v1Capability: capabilities[0] }),
    };
    if (converters[0] !== undefined) {
      out.push({ ...base, converter: converters[0] });
      continue;
    }
    if (rows.every((r) => r[to] === null)) {
      out.push({ ...base, lossy: rows.find((r) => r.lossy !== undefined)?.lossy ?? '' });
      continue;
    }
    const row = rows.find((r) => r[to] !== null);
    const conversion = conversions.find((c) => c.name === row?.conversion);
    if (targets.length > 1 || row === undefined || conversion === undefined) {
      problem(
        targets.length > 1
          ? `it becomes ${targets.join(' or ')} in ${to}: name a ${converterKey} that decides`
          : `its ${to} counterpart has no conversion: give one, or name a ${converterKey}`,
      );
      continue;
    }
    const d1 = updateDefinition(models.v1, (direction === 'toV1' ? row.v1 : kind) ?? '');
    const d2 = updateDefinition(models.v2, (direction === 'toV1' ? kind : row.v2) ?? '');
    const [source, target] = direction === 'toV1' ? [d2, d1] : [d1, d2];
    if (!conversion.directions.includes(direction) || conversion.v1 !== d1 || conversion.v2 !== d2) {
      problem(
        `conversion ${conversion.name} must convert ${from} ${String(source)} into ${to} ${String(target)} (${direction}), or name a ${converterKey}`,
      );
      continue;
    }
    out.push({ ...base, conversion: conversion.name });
  }
  return out;
}
