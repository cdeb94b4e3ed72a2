import { type JsonObject, type JsonValue, isJsonObject, pointerOf } from '../json.js';
import type { SchemaModel } from '../model/model.js';
import type { SchemaProblem } from '../problems.js';
import { objectShape } from './compat-fields.js';
import type {
  CompatDirection,
  ConversionKind,
  ConversionModel,
  DirectionSettings,
} from './compat-mapping-model.js';
import { record } from './compat-mapping-rows.js';
import { checkObject } from './compat-object-check.js';

/** The settings of one direction of a conversion entry (each keyword groups them by direction). */
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

/** One entry of the `conversions` list as a model (names default to the conversion's name). */
function conversionOf(raw: JsonObject, name: string): ConversionModel {
  return {
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
}

/** An enum conversion: both sides are open enums and every known value has a counterpart. */
function checkEnum(
  conversion: ConversionModel,
  v1: SchemaModel,
  v2: SchemaModel,
  problem: (message: string) => void,
): void {
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
          problem(`${direction}: value ${JSON.stringify(value)} has no counterpart; add values.${direction}`);
        }
      }
    }
  }
}

/** Checks one conversion whose definitions both exist, by its kind. */
function checkConversion(
  conversion: ConversionModel,
  v1: SchemaModel,
  v2: SchemaModel,
  problem: (message: string) => void,
): void {
  const defined = (model: SchemaModel, name: string) => model.definitions.some((d) => d.name === name);
  if (conversion.kind === 'enum') checkEnum(conversion, v1, v2, problem);
  if (conversion.kind === 'union') {
    const u1 = v1.unions.find((u) => u.name === conversion.v1);
    const u2 = v2.unions.find((u) => u.name === conversion.v2);
    if (!u1 || !u2) problem('union conversions need a discriminated union (x-discriminator) on both sides');
  }
  for (const direction of ['toV1', 'toV2'] as const) {
    const context = conversion[direction].context;
    if (context === undefined) continue;
    if (conversion.kind !== 'custom') problem(`context.${direction}: only custom conversions take a context`);
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
}

/** Union variants are converted by the conversion that pairs them; each must exist. */
function checkUnionPairs(
  conversions: readonly ConversionModel[],
  file: string,
  v1: SchemaModel,
  v2: SchemaModel,
  problems: SchemaProblem[],
): void {
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
}

/** A variant conversion delegates to the object conversion between the v1 object and the variant. */
function checkVariantPairs(
  conversions: readonly ConversionModel[],
  file: string,
  problems: SchemaProblem[],
): void {
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
}

/**
 * Checks the `conversions` list against both schema models and returns the conversions whose
 * definitions exist; every problem is pushed to `problems` (file + JSON pointer).
 */
export function checkConversions(
  mapping: JsonObject,
  file: string,
  v1: SchemaModel,
  v2: SchemaModel,
  problems: SchemaProblem[],
): ConversionModel[] {
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
    const conversion = conversionOf(raw, name);
    if (!defined(v1, conversion.v1)) problem(`v1 definition ${conversion.v1} does not exist in ${v1.source}`);
    if (!defined(v2, conversion.v2)) problem(`v2 definition ${conversion.v2} does not exist in ${v2.source}`);
    if (!defined(v1, conversion.v1) || !defined(v2, conversion.v2)) return;
    checkConversion(conversion, v1, v2, problem);
    conversions.push(conversion);
  });
  checkUnionPairs(conversions, file, v1, v2, problems);
  checkVariantPairs(conversions, file, problems);
  return conversions;
}
