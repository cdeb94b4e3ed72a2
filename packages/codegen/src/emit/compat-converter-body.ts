import type { WriterFunction } from 'ts-morph';
import { converterName } from './compat-converter-names.js';
import type { CompatDirection, CompatModel, ConversionModel } from './compat-mapping-model.js';
import { objectBody } from './compat-object-body.js';
import { passThroughCast, sideOf } from './compat-side.js';
import { literal } from './compat-source-text.js';
import { unionBody, variantBody } from './compat-union-bodies.js';

/** The body of an enum converter: a switch over the renamed values, the rest passed through. */
function enumBody(model: CompatModel, c: ConversionModel, direction: CompatDirection): WriterFunction {
  const values = Object.entries(c[direction].values);
  const cast = passThroughCast(sideOf(model, c, direction));
  return (writer) => {
    if (values.length === 0) {
      writer.write(`return value${cast};`);
      return;
    }
    writer.write('switch (value)').block(() => {
      for (const [fromValue, toValue] of values) {
        writer.writeLine(`case ${literal(fromValue)}:`);
        writer
          .indent()
          .write(`return ${literal(toValue)};`)
          .newLine();
      }
      writer.writeLine('default:');
      writer.indent().write(`return value${cast};`).newLine();
    });
  };
}

/** The body of one converter, by the kind of its conversion. */
export function body(model: CompatModel, c: ConversionModel, direction: CompatDirection): WriterFunction {
  switch (c.kind) {
    case 'object':
      return objectBody(model, c, direction);
    case 'union':
      return unionBody(model, c, direction);
    case 'variant':
      return variantBody(model, c, direction);
    case 'enum':
      return enumBody(model, c, direction);
    case 'identity':
      return (writer) => writer.write(`return value${passThroughCast(sideOf(model, c, direction))};`);
    case 'custom': {
      const context = c[direction].context;
      const args = context === undefined ? 'value' : `value, ${context.name}`;
      return (writer) => writer.write(`return custom.${converterName(c.name, direction)}(${args});`);
    }
  }
}
