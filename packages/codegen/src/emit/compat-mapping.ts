import { dirname, resolve } from 'node:path';
import { type JsonObject, type JsonValue, isJsonObject, pointerOf } from '../json.js';
import { createStrictAjv } from '../load/ajv.js';
import { displayPath } from '../load/display-path.js';
import { readJsonFile } from '../load/load-schema.js';
import type { SchemaModel } from '../model/model.js';
import type { SchemaProblem } from '../problems.js';
import { type ObjectShape, objectShape } from './compat-fields.js';

/** Which way a converter goes: `toV2` turns a v1 value into v2, `toV1` the reverse. */
export type CompatDirection = 'toV1' | 'toV2';

/** How one pair of definitions converts (see schema/compat/mapping.schema.json). */
export type ConversionKind = 'object' | 'union' | 'enum' | 'identity' | 'custom';

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
  /** Why this direction may lose information, if it can. */
  readonly lossy?: string;
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
  readonly note?: string;
}

/** The mapping with both schema models, ready for the converter emitter. */
export interface CompatModel {
  /** The mapping file as shown to people. */
  readonly source: string;
  readonly v1: SchemaModel;
  readonly v2: SchemaModel;
  readonly conversions: readonly ConversionModel[];
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
  const base = {
    drop: Array.isArray(drop) ? drop.filter((d): d is string => typeof d === 'string') : [],
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
  return problems.length > 0 ? { problems } : { model: { source: file, v1, v2, conversions }, problems };
}
