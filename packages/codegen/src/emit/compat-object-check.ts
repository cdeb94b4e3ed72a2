import type { ObjectShape } from './compat-fields.js';
import type { CompatDirection, ConversionModel } from './compat-mapping-model.js';

/**
 * Checks one direction of an object conversion against both object shapes: every source field is
 * carried (renamed or dropped), every listed field exists, and every required target field gets a value.
 */
export function checkObject(
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
