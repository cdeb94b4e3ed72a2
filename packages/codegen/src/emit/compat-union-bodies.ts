import type { WriterFunction } from 'ts-morph';
import { converterFor } from './compat-converter-names.js';
import type { CompatDirection, CompatModel, ConversionModel } from './compat-mapping-model.js';
import { losesUnknownTags, sideOf } from './compat-side.js';
import { access, literal } from './compat-source-text.js';
import { quote } from './ts-project.js';

/** The body of a union converter: a switch on the tag, each variant through its own converter. */
export function unionBody(
  model: CompatModel,
  c: ConversionModel,
  direction: CompatDirection,
): WriterFunction {
  const side = sideOf(model, c, direction);
  const from = side.fromModel.unions.find((u) => u.name === side.fromDef);
  const to = side.toModel.unions.find((u) => u.name === side.toDef);
  if (from === undefined || to === undefined)
    throw new Error(`compat: ${c.name} is not a union on both sides`);
  // A union with a string-tagged unknown branch does not narrow on its tag; the tag switch
  // establishes the branch, so each case asserts it.
  const narrow = (def: string): string => (from.acceptsUnknown ? `value as ${side.from}.${def}` : 'value');
  return (writer) => {
    writer.write(`switch (${access(from.tag)})`).block(() => {
      for (const variant of from.variants) {
        const other = to.variants.find((v) => v.tagValue === variant.tagValue);
        const converter =
          other === undefined
            ? undefined
            : converterFor(model, direction, variant.definition, other.definition);
        if (converter === undefined) {
          throw new Error(
            `compat: union ${c.name} (${direction}) has no conversion for its ${variant.tagValue} variant`,
          );
        }
        writer.writeLine(`case ${literal(variant.tagValue)}:`);
        writer
          .indent()
          .write(`return ${converter}(${narrow(variant.definition)});`)
          .newLine();
      }
      writer.writeLine('default:');
      const extension =
        from.extension !== undefined && to.extension !== undefined
          ? converterFor(model, direction, from.extension, to.extension)
          : undefined;
      const rest = from.extension === undefined ? 'value' : narrow(from.extension);
      if (losesUnknownTags(from, to) && extension !== undefined) {
        // The target version takes only `_`-prefixed unknown tags; any other has no form there.
        writer.indent(() => {
          writer.writeLine(`if (${access(from.tag)}.startsWith('_')) return ${extension}(${rest});`);
          writer.writeLine(
            `throw new CompatError(${quote(`${c.name} ${from.tag} `)} + JSON.stringify(${access(from.tag)}) + ${quote(` has no ${side.to === 'V1' ? 'v1' : 'v2'} form`)}, ${quote(`/${from.tag}`)});`,
          );
        });
        return;
      }
      writer
        .indent()
        .write(extension === undefined ? `return ${rest};` : `return ${extension}(${rest});`)
        .newLine();
    });
  };
}

/** The body of a variant converter: the v1 object as one variant of the v2 union, and back. */
export function variantBody(
  model: CompatModel,
  c: ConversionModel,
  direction: CompatDirection,
): WriterFunction {
  const union = model.v2.unions.find((u) => u.name === c.v2);
  const variant = union?.variants.find((v) => v.definition === c.variant);
  const converter =
    c.variant === undefined
      ? undefined
      : direction === 'toV2'
        ? converterFor(model, 'toV2', c.v1, c.variant)
        : converterFor(model, 'toV1', c.variant, c.v1);
  if (union === undefined || variant === undefined || converter === undefined)
    throw new Error(`compat: variant ${c.name} has no union, variant or paired conversion`);
  return (writer) => {
    if (direction === 'toV2') {
      writer.write(`return ${converter}(value);`);
      return;
    }
    writer.writeLine(
      `if (${access(union.tag)} === ${literal(variant.tagValue)}) return ${converter}(value as V2.${variant.definition});`,
    );
    writer.write(
      `throw new CompatError(${quote(`${c.name} ${union.tag} `)} + JSON.stringify(${access(union.tag)}) + ${quote(' has no v1 form')}, ${quote(`/${union.tag}`)});`,
    );
  };
}
