/**
 * A small deterministic instance generator for JSON Schema (the subset the official ACP schema
 * uses): for one definition it yields a minimal instance (required properties only) and a full one
 * (every property), once per branch of the definition's own `anyOf`/`oneOf`. Nested choices take
 * their first non-null branch in the full instance and the null branch (when there is one) in the
 * minimal one. No randomness: the same schema always gives the same instances.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: unknown };

const MAX_DEPTH = 48;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A sample for a string, honouring the formats and lengths the official schema uses. */
function sampleString(schema: Schema): string {
  switch (schema.format) {
    case 'uri':
      return 'https://example.com/sample';
    case 'date-time':
      return '2026-01-01T00:00:00Z';
    case 'regex':
      return '^sample$';
    default: {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return 'sample'.padEnd(min, 's');
    }
  }
}

function sampleNumber(schema: Schema, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  let value = integer ? 1 : 0.5;
  if (min !== undefined && value < min) value = min;
  if (max !== undefined && value > max) value = max;
  return value;
}

function merge(a: Json | undefined, b: Json): Json {
  if (isSchema(a) && isSchema(b)) return { ...(a as Record<string, Json>), ...(b as Record<string, Json>) };
  return b;
}

/** Generates instances of JSON Schema definitions of one schema document. */
export class Sampler {
  readonly #defs: Record<string, Schema>;

  constructor(schema: Schema) {
    this.#defs = (schema.$defs ?? {}) as Record<string, Schema>;
  }

  /** The instances for `$defs/<name>`: minimal and full, for each top-level branch. */
  instances(name: string): Json[] {
    const schema = this.#defs[name];
    if (schema === undefined) throw new Error(`no definition ${name}`);
    const branches = this.#branches(schema);
    const out: Json[] = [];
    const seen = new Set<string>();
    for (const branch of branches.length === 0 ? [undefined] : branches.map((_, i) => i)) {
      for (const full of [false, true]) {
        const value = this.#sample(schema, full, 0, branch);
        const key = JSON.stringify(value);
        if (!seen.has(key)) {
          seen.add(key);
          out.push(value);
        }
      }
    }
    return out;
  }

  #branches(schema: Schema): unknown[] {
    const list = schema.anyOf ?? schema.oneOf;
    return Array.isArray(list) ? list : [];
  }

  #resolve(schema: Schema): Schema {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const name = ref.replace('#/$defs/', '');
    const target = this.#defs[name];
    if (target === undefined) throw new Error(`unresolved ${ref}`);
    const { $ref: _ignored, ...rest } = schema;
    return { ...target, ...rest };
  }

  #pickBranch(list: unknown[], full: boolean): number {
    const nullIndex = list.findIndex((b) => isSchema(b) && b.type === 'null');
    if (!full && nullIndex >= 0) return nullIndex;
    const first = list.findIndex((_, i) => i !== nullIndex);
    return Math.max(first, 0);
  }

  #sample(raw: Schema, full: boolean, depth: number, branch?: number): Json {
    if (depth > MAX_DEPTH) return null;
    const schema = this.#resolve(raw);
    if ('const' in schema) return schema.const as Json;
    if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
    let value: Json | undefined;
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    // A nullable property in the minimal instance is null only when it is all it can be.
    const type = types.find((t) => t !== 'null') ?? types[0];
    switch (type) {
      case 'string':
        value = sampleString(schema);
        break;
      case 'integer':
        value = sampleNumber(schema, true);
        break;
      case 'number':
        value = sampleNumber(schema, false);
        break;
      case 'boolean':
        value = true;
        break;
      case 'null':
        value = null;
        break;
      case 'array': {
        const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
        const count = full ? Math.max(1, min) : min;
        value = isSchema(schema.items)
          ? Array.from({ length: count }, () => this.#sample(schema.items as Schema, full, depth + 1))
          : [];
        break;
      }
      case 'object':
        value = this.#object(schema, full, depth);
        break;
    }
    if (value === undefined && isSchema(schema.properties)) value = this.#object(schema, full, depth);
    for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
      if (isSchema(part)) value = merge(value, this.#sample(part, full, depth + 1));
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = schema[key];
      if (!Array.isArray(list) || list.length === 0) continue;
      const index =
        key === this.#topKey(schema) && branch !== undefined ? branch : this.#pickBranch(list, full);
      const chosen = list[index];
      if (isSchema(chosen)) value = merge(value, this.#sample(chosen, full, depth + 1));
    }
    return value === undefined ? 'sample' : value;
  }

  /** Which keyword holds a definition's top-level branches (the one `instances` enumerates). */
  #topKey(schema: Schema): 'anyOf' | 'oneOf' | undefined {
    return Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
  }

  #object(schema: Schema, full: boolean, depth: number): Json {
    const out: Record<string, Json> = {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const properties = isSchema(schema.properties) ? schema.properties : {};
    for (const [name, sub] of Object.entries(properties)) {
      if (!isSchema(sub)) continue;
      if (!full && !required.has(name)) continue;
      out[name] = this.#sample(sub, full, depth + 1);
    }
    if (full && isSchema(schema.additionalProperties)) {
      out.sampleKey = this.#sample(schema.additionalProperties, full, depth + 1);
    }
    return out;
  }
}
