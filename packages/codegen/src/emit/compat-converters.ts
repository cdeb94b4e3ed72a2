import { VariableDeclarationKind, type WriterFunction } from 'ts-morph';
import type { JsonValue } from '../json.js';
import type { SchemaModel } from '../model/model.js';
import type { CompatDirection, CompatModel, ContextModel, ConversionModel } from './compat-mapping.js';
import { type FieldShape, objectShape } from './compat-fields.js';
import type { EmittedFile } from './emitted-file.js';
import { createProject, docText, printSourceFile, quote } from './ts-project.js';

/** Where the converters import their types and hand-written parts from, relative to the output file. */
export interface CompatEmitterOptions {
  /** Module exporting the v1 types (default `../v1/types.js`). */
  readonly v1Module?: string;
  /** Module exporting the v2 types (default `@acp-kit/schema`). */
  readonly v2Module?: string;
  /** Hand-written converters for `custom` conversions (default `../../custom-converters.js`). */
  readonly customModule?: string;
  /** Module exporting `CompatError(message, pointer)` (default `../../compat-error.js`). */
  readonly errorModule?: string;
}

/** The name of one converter, e.g. `v1ToV2ContentBlock`. */
export function converterName(name: string, direction: CompatDirection): string {
  return direction === 'toV2' ? `v1ToV2${name}` : `v2ToV1${name}`;
}

interface Side {
  readonly from: 'V1' | 'V2';
  readonly to: 'V1' | 'V2';
  readonly fromModel: SchemaModel;
  readonly toModel: SchemaModel;
  readonly fromDef: string;
  readonly toDef: string;
}

function sideOf(model: CompatModel, c: ConversionModel, direction: CompatDirection): Side {
  return direction === 'toV2'
    ? { from: 'V1', to: 'V2', fromModel: model.v1, toModel: model.v2, fromDef: c.v1, toDef: c.v2 }
    : { from: 'V2', to: 'V1', fromModel: model.v2, toModel: model.v1, fromDef: c.v2, toDef: c.v1 };
}

/** Finds the converter between two definitions in one direction, if the mapping declares one. */
function converterFor(
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

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function access(name: string): string {
  return IDENTIFIER.test(name) ? `value.${name}` : `value[${JSON.stringify(name)}]`;
}

/** A JSON value as TypeScript source; strings single-quoted like the rest of the generated code. */
function literal(value: JsonValue): string {
  if (typeof value === 'string') return quote(value);
  return JSON.stringify(value);
}

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

function objectBody(model: CompatModel, c: ConversionModel, direction: CompatDirection): WriterFunction {
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

/**
 * Whether a definition takes values it does not know in its own type: an open enum typed with
 * `UnknownValue`, or the branded unknown branch of an open union. Converting such a value to or
 * from the other version's type needs an assertion (the value passes through unchanged).
 */
function takesUnknown(schema: SchemaModel, def: string): boolean {
  return (
    schema.openEnums.some((e) => e.name === def && e.acceptsUnknown) ||
    schema.unions.some((u) => u.extension === def && u.acceptsUnknown)
  );
}

/** ` as <To>` when a pass-through return crosses an open type, else nothing. */
function passThroughCast(side: Side): string {
  return takesUnknown(side.fromModel, side.fromDef) || takesUnknown(side.toModel, side.toDef)
    ? ` as ${side.to}.${side.toDef}`
    : '';
}

/** Whether converting a union drops into an error for tags the target cannot carry. */
function losesUnknownTags(from: SchemaModel['unions'][number], to: SchemaModel['unions'][number]): boolean {
  return from.acceptsUnknown && !to.acceptsUnknown;
}

function unionBody(model: CompatModel, c: ConversionModel, direction: CompatDirection): WriterFunction {
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

function variantBody(model: CompatModel, c: ConversionModel, direction: CompatDirection): WriterFunction {
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

/** The TypeScript type of a custom converter's context argument. */
function contextType(context: ContextModel): string {
  const type = `${context.version === 'v1' ? 'V1' : 'V2'}.${context.definition}`;
  return context.array ? `readonly ${type}[]` : type;
}

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

function body(model: CompatModel, c: ConversionModel, direction: CompatDirection): WriterFunction {
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

function describe(c: ConversionModel, direction: CompatDirection, side: Side): string {
  const what =
    direction === 'toV2'
      ? `Converts a v1 \`${side.fromDef}\` into a v2 \`${side.toDef}\``
      : `Converts a v2 \`${side.fromDef}\` into a v1 \`${side.toDef}\``;
  const how = c.kind === 'custom' ? ' (hand-written)' : '';
  const loss = c[direction].lossy === undefined ? '' : ` Lossy: ${c[direction].lossy}`;
  return docText(`${what}${how}.${loss}`);
}

/**
 * Emits `converters.ts`: one `v1ToV2<Name>` / `v2ToV1<Name>` function per conversion and
 * direction of the mapping, and the `CONVERSIONS` table that lists them with their loss notes.
 */
export function emitCompatConverters(model: CompatModel, options: CompatEmitterOptions = {}): EmittedFile[] {
  const project = createProject();
  const file = project.createSourceFile('converters.ts');
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: options.v1Module ?? '../v1/types.js',
    namespaceImport: 'V1',
  });
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: options.v2Module ?? '@acp-kit/schema',
    namespaceImport: 'V2',
  });
  const throwsCompatError = model.conversions.some((c) =>
    c.directions.some((direction) => {
      if (c.kind === 'variant') return direction === 'toV1';
      if (c.kind !== 'union') return false;
      const side = sideOf(model, c, direction);
      const from = side.fromModel.unions.find((u) => u.name === side.fromDef);
      const to = side.toModel.unions.find((u) => u.name === side.toDef);
      return from !== undefined && to !== undefined && losesUnknownTags(from, to);
    }),
  );
  if (throwsCompatError) {
    file.addImportDeclaration({
      moduleSpecifier: options.errorModule ?? '../../compat-error.js',
      namedImports: ['CompatError'],
    });
  }
  if (model.conversions.some((c) => c.kind === 'custom')) {
    file.addImportDeclaration({
      moduleSpecifier: options.customModule ?? '../../custom-converters.js',
      namespaceImport: 'custom',
    });
  }
  for (const c of model.conversions) {
    for (const direction of c.directions) {
      const side = sideOf(model, c, direction);
      const context = c[direction].context;
      file.addFunction({
        name: converterName(c.name, direction),
        isExported: true,
        docs: [
          {
            description:
              context === undefined
                ? describe(c, direction, side)
                : `${describe(c, direction, side)}\n\n@param ${context.name} - ${docText(context.description)}`,
          },
        ],
        parameters: [
          { name: 'value', type: `${side.from}.${side.fromDef}` },
          ...(context === undefined ? [] : [{ name: context.name, type: contextType(context) }]),
        ],
        returnType: `${side.to}.${side.toDef}`,
        statements: body(model, c, direction),
      });
    }
  }
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
  emitTables(file, model);
  const header = `// Generated by @acp-kit/codegen from ${model.source} — do not edit.`;
  return [{ path: 'converters.ts', contents: printSourceFile(header, file) }];
}

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
function emitTables(
  file: ReturnType<ReturnType<typeof createProject>['createSourceFile']>,
  model: CompatModel,
): void {
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
