import { type SourceFile, VariableDeclarationKind, type WriterFunction } from 'ts-morph';
import type { CompatModel } from './compat-mapping-model.js';
import { literal } from './compat-source-text.js';

/** A table row's optional string fields, written when present. */
function optionalLines(
  writer: Parameters<WriterFunction>[0],
  row: Readonly<Record<string, string | null | undefined>>,
  keys: readonly string[],
): void {
  for (const key of keys) {
    const value = row[key];
    if (typeof value === 'string') writer.writeLine(`${key}: ${literal(value)},`);
  }
}

/** Emits `METHOD_MAPPING` and `UPDATE_MAPPING`: every method and update kind with its counterpart. */
export function emitTables(file: SourceFile, model: CompatModel): void {
  const shared = [
    {
      name: 'v1',
      isReadonly: true,
      type: 'string | null',
      docs: ['The v1 name, or null when only v2 has it.'],
    },
    {
      name: 'v2',
      isReadonly: true,
      type: 'string | null',
      docs: ['The v2 name, or null when only v1 has it.'],
    },
    {
      name: 'lossy',
      isReadonly: true,
      hasQuestionToken: true,
      type: 'string',
      docs: ['What is lost or differs (always set when one side is null).'],
    },
    {
      name: 'note',
      isReadonly: true,
      hasQuestionToken: true,
      type: 'string',
      docs: ['Anything else to know.'],
    },
  ];
  file.addInterface({
    name: 'MethodMappingInfo',
    isExported: true,
    docs: [
      {
        description:
          'One method of either version, its counterpart and the conversions of its params and result.',
      },
    ],
    properties: [
      ...shared,
      {
        name: 'params',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'string',
        docs: ['The conversion (CONVERSIONS name) of the params.'],
      },
      {
        name: 'result',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'string',
        docs: ['The conversion (CONVERSIONS name) of the result.'],
      },
    ],
  });
  file.addInterface({
    name: 'UpdateMappingInfo',
    isExported: true,
    docs: [{ description: 'One session/update kind of either version and its counterpart.' }],
    properties: [
      ...shared,
      {
        name: 'conversion',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'string',
        docs: ['The conversion (CONVERSIONS name) of the update.'],
      },
    ],
  });
  const table = (
    name: string,
    type: string,
    description: string,
    rows: readonly Record<string, string | null | undefined>[],
    keys: readonly string[],
  ) =>
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [{ description }],
      declarations: [
        {
          name,
          type: `readonly ${type}[]`,
          initializer: (writer) => {
            writer.write('[');
            writer.indent(() => {
              for (const row of rows) {
                writer.inlineBlock(() => {
                  writer.writeLine(
                    `v1: ${row.v1 === null || row.v1 === undefined ? 'null' : literal(row.v1)},`,
                  );
                  writer.writeLine(
                    `v2: ${row.v2 === null || row.v2 === undefined ? 'null' : literal(row.v2)},`,
                  );
                  optionalLines(writer, row, keys);
                });
                writer.write(',').newLine();
              }
            });
            writer.write(']');
          },
        },
      ],
    });
  table(
    'METHOD_MAPPING',
    'MethodMappingInfo',
    'Every method of both versions with its counterpart, in mapping order.',
    model.methods as unknown as Record<string, string | null | undefined>[],
    ['params', 'result', 'lossy', 'note'],
  );
  table(
    'UPDATE_MAPPING',
    'UpdateMappingInfo',
    'Every session/update kind of both versions with its counterpart, in mapping order.',
    model.updates as unknown as Record<string, string | null | undefined>[],
    ['conversion', 'lossy', 'note'],
  );
}
