import type { CompatDirection, CompatModel } from './compat-mapping-model.js';

/** The name of one converter, e.g. `v1ToV2ContentBlock`. */
export function converterName(name: string, direction: CompatDirection): string {
  return direction === 'toV2' ? `v1ToV2${name}` : `v2ToV1${name}`;
}

/** Finds the converter between two definitions in one direction, if the mapping declares one. */
export function converterFor(
  model: CompatModel,
  direction: CompatDirection,
  fromDef: string,
  toDef: string,
): string | undefined {
  const found = model.conversions.find(
    (c) =>
      c.directions.includes(direction) &&
      (direction === 'toV2' ? c.v1 === fromDef && c.v2 === toDef : c.v2 === fromDef && c.v1 === toDef),
  );
  return found === undefined ? undefined : converterName(found.name, direction);
}
