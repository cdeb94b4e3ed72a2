import type { SchemaModel } from '../model/model.js';
import type { CompatDirection, CompatModel, ConversionModel } from './compat-mapping-model.js';

/** One direction of a conversion: which version and definition it reads and which it writes. */
export interface Side {
  readonly from: 'V1' | 'V2';
  readonly to: 'V1' | 'V2';
  readonly fromModel: SchemaModel;
  readonly toModel: SchemaModel;
  readonly fromDef: string;
  readonly toDef: string;
}

/** The side of a conversion in one direction. */
export function sideOf(model: CompatModel, c: ConversionModel, direction: CompatDirection): Side {
  return direction === 'toV2'
    ? { from: 'V1', to: 'V2', fromModel: model.v1, toModel: model.v2, fromDef: c.v1, toDef: c.v2 }
    : { from: 'V2', to: 'V1', fromModel: model.v2, toModel: model.v1, fromDef: c.v2, toDef: c.v1 };
}

/**
 * Whether a definition takes values it does not know in its own type: an open enum typed with
 * `UnknownValue`, or the branded unknown branch of an open union. Converting such a value to or
 * from the other version's type needs an assertion (the value passes through unchanged).
 */
export function takesUnknown(schema: SchemaModel, def: string): boolean {
  return (
    schema.openEnums.some((e) => e.name === def && e.acceptsUnknown) ||
    schema.unions.some((u) => u.extension === def && u.acceptsUnknown)
  );
}

/** ` as <To>` when a pass-through return crosses an open type, else nothing. */
export function passThroughCast(side: Side): string {
  return takesUnknown(side.fromModel, side.fromDef) || takesUnknown(side.toModel, side.toDef)
    ? ` as ${side.to}.${side.toDef}`
    : '';
}

/** Whether converting a union drops into an error for tags the target cannot carry. */
export function losesUnknownTags(
  from: SchemaModel['unions'][number],
  to: SchemaModel['unions'][number],
): boolean {
  return from.acceptsUnknown && !to.acceptsUnknown;
}
