import { type JsonObject, type JsonValue, defNameOfRef, isJsonObject } from '../json.js';
import type { SchemaModel } from '../model/model.js';

/** What the converter emitter needs to know about one property. */
export interface FieldShape {
  readonly required: boolean;
  /** The property accepts `null`. */
  readonly nullable: boolean;
  /** `one`: a single referenced definition; `array`: an array of one; `other`: anything else (copied). */
  readonly container: 'one' | 'array' | 'other';
  /** The referenced definition, for `one` and `array`. */
  readonly ref?: string;
  /** The property's `const`, if it has one (tags). */
  readonly constValue?: JsonValue;
  /** An array with `minItems` ≥ 1 (its TypeScript type is a non-empty tuple). */
  readonly nonEmpty?: boolean;
  /** The number's `minimum`, if it has one. */
  readonly minimum?: number;
  /** The number's `maximum`, if it has one. */
  readonly maximum?: number;
}

/** The properties of an object definition, including those it takes from `allOf` references. */
export interface ObjectShape {
  readonly fields: ReadonlyMap<string, FieldShape>;
}

function allowsNull(schema: JsonObject): boolean {
  if (schema.type === 'null') return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some((b) => isJsonObject(b) && b.type === 'null');
}

function refOf(schema: JsonObject): string | undefined {
  const direct = defNameOfRef(schema.$ref);
  if (direct !== undefined) return direct;
  if (!Array.isArray(schema.anyOf)) return undefined;
  const refs = schema.anyOf.filter((b) => isJsonObject(b) && b.type !== 'null');
  const [only] = refs;
  return refs.length === 1 && isJsonObject(only) ? defNameOfRef(only.$ref) : undefined;
}

/** Classifies a property schema the way the converters treat it. */
export function fieldShape(schema: JsonObject, required: boolean): FieldShape {
  const nullable = allowsNull(schema);
  const base = {
    required,
    nullable,
    ...(schema.const === undefined ? {} : { constValue: schema.const }),
    ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
    ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
  };
  const one = refOf(schema);
  if (one !== undefined) return { ...base, container: 'one', ref: one };
  const isArray = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
  const items = isJsonObject(schema.items) ? defNameOfRef(schema.items.$ref) : undefined;
  const nonEmpty = typeof schema.minItems === 'number' && schema.minItems >= 1;
  if (isArray && items !== undefined) return { ...base, container: 'array', ref: items, nonEmpty };
  return { ...base, container: 'other' };
}

/** Collects an object definition's properties, following `allOf` references (as ToolCallUpdate uses). */
export function objectShape(model: SchemaModel, name: string): ObjectShape {
  const defs = isJsonObject(model.schema.$defs) ? model.schema.$defs : {};
  const fields = new Map<string, FieldShape>();
  const visit = (defName: string, seen: Set<string>): void => {
    const def = defs[defName];
    if (!isJsonObject(def) || seen.has(defName)) return;
    seen.add(defName);
    for (const part of Array.isArray(def.allOf) ? def.allOf : []) {
      const ref = isJsonObject(part) ? defNameOfRef(part.$ref) : undefined;
      if (ref !== undefined) visit(ref, seen);
    }
    const required = new Set(Array.isArray(def.required) ? def.required : []);
    if (!isJsonObject(def.properties)) return;
    for (const [prop, schema] of Object.entries(def.properties)) {
      if (!isJsonObject(schema)) continue;
      const previous = fields.get(prop);
      const shape = fieldShape(schema, required.has(prop) || (previous?.required ?? false));
      fields.set(prop, shape);
    }
  };
  visit(name, new Set());
  return { fields };
}
