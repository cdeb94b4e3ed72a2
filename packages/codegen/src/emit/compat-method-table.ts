import { type JsonObject, isJsonObject, pointerOf } from '../json.js';
import type { SchemaModel } from '../model/model.js';
import type { SchemaProblem } from '../problems.js';
import type { ConversionModel, MethodMappingModel } from './compat-mapping-model.js';
import { nameOrNull, optional } from './compat-mapping-rows.js';

/** Checks the `methods` table: names exist, conversions exist, every method of both versions is listed. */
export function checkMethodTable(
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
