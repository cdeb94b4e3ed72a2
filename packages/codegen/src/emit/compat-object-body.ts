import type { WriterFunction } from 'ts-morph';
import { converterFor } from './compat-converter-names.js';
import { type FieldShape, objectShape } from './compat-fields.js';
import type { CompatDirection, CompatModel, ConversionModel } from './compat-mapping-model.js';
import { sideOf } from './compat-side.js';
import { access, literal, propertyKey } from './compat-source-text.js';

/** The expression converting one present, non-null (unless both sides allow null) source value. */
function converted(
  expr: string,
  source: FieldShape,
  target: FieldShape,
  converter: string | undefined,
  targetSide: 'V1' | 'V2',
): string {
  const mapped =
    converter === undefined
      ? expr
      : target.container === 'array'
        ? `${expr}.map((item) => ${converter}(item))`
        : `${converter}(${expr})`;
  // A non-empty target list from a source list that may be empty: the type is asserted here and
  // the receiver's validator rejects an empty list with a pointer, instead of the converter guessing.
  // A non-empty source mapped item by item stays non-empty, but `.map` loses the tuple type.
  const item = `${targetSide}.${target.ref}`;
  const mappedList = converter !== undefined && target.container === 'array';
  const apply =
    target.nonEmpty && (!source.nonEmpty || mappedList) && target.ref !== undefined
      ? `(${mapped} as [${item}, ...${item}[]])`
      : mapped;
  if (converter !== undefined && source.nullable && target.nullable)
    return `${expr} === null ? null : ${apply}`;
  return apply;
}

/** The body of an object converter: one property per target field. */
export function objectBody(
  model: CompatModel,
  c: ConversionModel,
  direction: CompatDirection,
): WriterFunction {
  const side = sideOf(model, c, direction);
  const source = objectShape(side.fromModel, side.fromDef);
  const target = objectShape(side.toModel, side.toDef);
  const settings = c[direction];
  const sourceName = (field: string): string =>
    direction === 'toV2'
      ? (Object.entries(c.rename).find(([, v2]) => v2 === field)?.[0] ?? field)
      : (c.rename[field] ?? field);
  return (writer) => {
    writer.write('return ').inlineBlock(() => {
      for (const [field, shape] of target.fields) {
        const key = propertyKey(field);
        if (field in settings.set) {
          writer.writeLine(`${key}: ${literal(settings.set[field] ?? null)},`);
          continue;
        }
        const from = sourceName(field);
        const src = settings.drop.includes(from) ? undefined : source.fields.get(from);
        if (shape.constValue !== undefined) {
          if (shape.required || src?.required) writer.writeLine(`${key}: ${literal(shape.constValue)},`);
          else if (src !== undefined)
            writer.writeLine(
              `...(${access(from)} === undefined ? {} : { ${key}: ${literal(shape.constValue)} }),`,
            );
          continue;
        }
        const fallback = settings.defaults[field];
        if (src === undefined) {
          if (fallback !== undefined) writer.writeLine(`${key}: ${literal(fallback)},`);
          continue;
        }
        const converter =
          src.ref !== undefined && shape.ref !== undefined
            ? converterFor(model, direction, src.ref, shape.ref)
            : undefined;
        const expr = converted(access(from), src, shape, converter, side.to);
        const bounds = settings.omitInvalid.includes(from)
          ? [
              ...(shape.minimum === undefined ? [] : [`${access(from)} < ${shape.minimum}`]),
              ...(shape.maximum === undefined ? [] : [`${access(from)} > ${shape.maximum}`]),
            ]
          : [];
        // An out-of-bounds value is omitted (checked only when present and not null).
        const anyBound = bounds.length === 1 ? bounds.join('') : `(${bounds.join(' || ')})`;
        const outOfBounds =
          bounds.length === 0 ? [] : [src.nullable ? `(${access(from)} !== null && ${anyBound})` : anyBound];
        const missing = [
          ...(src.required ? [] : [`${access(from)} === undefined`]),
          ...(src.nullable && !shape.nullable ? [`${access(from)} === null`] : []),
          ...outOfBounds,
        ].join(' || ');
        if (missing === '') writer.writeLine(`${key}: ${expr},`);
        else if (shape.required)
          writer.writeLine(`${key}: ${missing} ? ${literal(fallback ?? null)} : ${expr},`);
        else writer.writeLine(`...(${missing} ? {} : { ${key}: ${expr} }),`);
      }
    });
    writer.write(';');
  };
}
