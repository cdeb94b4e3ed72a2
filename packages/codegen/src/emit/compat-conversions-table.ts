import { type SourceFile, VariableDeclarationKind } from 'ts-morph';
import { converterName } from './compat-converter-names.js';
import type { CompatModel } from './compat-mapping-model.js';
import { literal } from './compat-source-text.js';

/** Emits the `ConversionInfo` interface and the `CONVERSIONS` table that lists every converter. */
export function emitConversionsTable(file: SourceFile, model: CompatModel): void {
  file.addInterface({
    name: 'ConversionInfo',
    isExported: true,
    docs: [
      {
        description:
          'One conversion of the mapping: the definitions it pairs, its converters and what it may lose.',
      },
    ],
    properties: [
      { name: 'name', isReadonly: true, type: 'string', docs: ['Suffix of the converter names.'] },
      { name: 'v1', isReadonly: true, type: 'V1.DefinitionName', docs: ['The v1 definition.'] },
      { name: 'v2', isReadonly: true, type: 'V2.DefinitionName', docs: ['The v2 definition.'] },
      {
        name: 'toV2',
        isReadonly: true,
        hasQuestionToken: true,
        type: '(value: never, context: never) => unknown',
        docs: ['v1 → v2 (with a second argument when contextToV2 says what it is).'],
      },
      {
        name: 'toV1',
        isReadonly: true,
        hasQuestionToken: true,
        type: '(value: never, context: never) => unknown',
        docs: ['v2 → v1 (with a second argument when contextToV1 says what it is).'],
      },
      {
        name: 'lossyToV2',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'string',
        docs: ['What v1 → v2 may lose.'],
      },
      {
        name: 'lossyToV1',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'string',
        docs: ['What v2 → v1 may lose.'],
      },
      {
        name: 'dropToV2',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'readonly string[]',
        docs: ['Top-level fields of the v1 value that v1 → v2 leaves out: each one present is lost.'],
      },
      {
        name: 'dropToV1',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'readonly string[]',
        docs: ['Top-level fields of the v2 value that v2 → v1 leaves out: each one present is lost.'],
      },
      {
        name: 'contextToV2',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'string',
        docs: ['The second argument toV2 needs, if it needs one.'],
      },
      {
        name: 'contextToV1',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'string',
        docs: ['The second argument toV1 needs, if it needs one.'],
      },
    ],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [{ description: 'Every conversion of the mapping, in mapping order.' }],
    declarations: [
      {
        name: 'CONVERSIONS',
        type: 'readonly ConversionInfo[]',
        initializer: (writer) => {
          writer.write('[');
          writer.indent(() => {
            for (const c of model.conversions) {
              writer.inlineBlock(() => {
                writer.writeLine(`name: ${literal(c.name)},`);
                writer.writeLine(`v1: ${literal(c.v1)},`);
                writer.writeLine(`v2: ${literal(c.v2)},`);
                for (const direction of c.directions)
                  writer.writeLine(`${direction}: ${converterName(c.name, direction)},`);
                if (c.toV2.lossy !== undefined) writer.writeLine(`lossyToV2: ${literal(c.toV2.lossy)},`);
                if (c.toV1.lossy !== undefined) writer.writeLine(`lossyToV1: ${literal(c.toV1.lossy)},`);
                for (const direction of ['toV2', 'toV1'] as const) {
                  const { drop } = c[direction];
                  if (drop.length > 0 && c.directions.includes(direction))
                    writer.writeLine(
                      `drop${direction === 'toV2' ? 'ToV2' : 'ToV1'}: [${drop.map((field) => literal(field)).join(', ')}],`,
                    );
                }
                for (const direction of ['toV2', 'toV1'] as const) {
                  const context = c[direction].context;
                  if (context !== undefined && c.directions.includes(direction))
                    writer.writeLine(
                      `context${direction === 'toV2' ? 'ToV2' : 'ToV1'}: ${literal(`${context.name}: ${context.description}`)},`,
                    );
                }
              });
              writer.write(',').newLine();
            }
          });
          writer.write(']');
        },
      },
    ],
  });
}
