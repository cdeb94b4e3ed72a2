import { type SourceFile, VariableDeclarationKind } from 'ts-morph';
import { defNameOfRef, isJsonObject, type JsonObject } from '../json.js';
import type { DefinitionModel, DiscriminatedUnionModel, SchemaModel } from '../model/model.js';
import { SchemaError } from '../problems.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { createProject, docText, printSourceFile, quote } from './ts-project.js';

/** The notification whose `update` union the tables describe. */
export const UPDATE_METHOD = 'session/update';

/** One row of the update-kind table, as derived from the schema. */
export interface UpdateKindRow {
  /** The tag value (`sessionUpdate`). */
  readonly kind: string;
  /** The definition of the update body. */
  readonly definition: string;
  /** The required property naming the entity the update is about (`messageId`, `toolCallId`), if any. */
  readonly idField: string | null;
  /** For a chunk (one piece appended to an entity): the kind of the whole update it belongs to. */
  readonly chunkOf: string | null;
  /** For a kind that chunks append to: the chunk kind. */
  readonly chunk: string | null;
  /** For a chunk and the kind it belongs to: the property of the whole kind that the chunks append to. */
  readonly appendsTo: string | null;
  /**
   * For a kind that chunks append to: whether an update carrying only its tag, its ID and
   * `appendsTo: null` is valid (the kind requires nothing else), so it can clear the entity alone.
   */
  readonly clearsAlone: boolean;
  readonly description: string;
}

/** The update union of `session/update`, its tag and its rows, or undefined when the schema has none. */
export interface UpdateKindTable {
  readonly union: string;
  readonly tag: string;
  readonly rows: readonly UpdateKindRow[];
}

/** Own and `allOf`-inherited properties and required names of an object definition. */
function flatten(
  defs: ReadonlyMap<string, DefinitionModel>,
  schema: JsonObject,
  seen = new Set<JsonObject>(),
): { properties: Map<string, JsonObject>; required: Set<string> } {
  const properties = new Map<string, JsonObject>();
  const required = new Set<string>();
  if (seen.has(schema)) return { properties, required };
  seen.add(schema);
  const parts = Array.isArray(schema.allOf) ? schema.allOf : [];
  for (const part of parts) {
    const name = isJsonObject(part) ? defNameOfRef(part.$ref) : undefined;
    const inherited = name === undefined ? undefined : defs.get(name);
    if (inherited === undefined) continue;
    const sub = flatten(defs, inherited.schema, seen);
    for (const [key, value] of sub.properties) properties.set(key, value);
    for (const key of sub.required) required.add(key);
  }
  if (isJsonObject(schema.properties)) {
    for (const [key, value] of Object.entries(schema.properties)) {
      if (isJsonObject(value)) properties.set(key, value);
    }
  }
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) if (typeof key === 'string') required.add(key);
  }
  return { properties, required };
}

/** A required `…Id` property whose type is an `…Id` definition: what the update is keyed by. */
function idFieldOf(properties: Map<string, JsonObject>, required: Set<string>): string | null {
  for (const [key, schema] of properties) {
    const target = defNameOfRef(schema.$ref);
    if (key.endsWith('Id') && required.has(key) && target?.endsWith('Id')) return key;
  }
  return null;
}

/** The definition of a `content` that is one block (`$ref`), if it is one. */
function singleContent(properties: Map<string, JsonObject>): string | undefined {
  const content = properties.get('content');
  return content === undefined ? undefined : defNameOfRef(content.$ref);
}

/** Each property that is an array of one definition's values, by name (`content` first). */
function arrays(properties: Map<string, JsonObject>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, schema] of [...properties].sort(
    ([a], [b]) => Number(b === 'content') - Number(a === 'content'),
  )) {
    const items = isJsonObject(schema.items) ? defNameOfRef(schema.items.$ref) : undefined;
    if (items !== undefined) out.set(key, items);
  }
  return out;
}

/** The property of `whole` an array of `block` values, if it has one. */
function arrayOf(whole: { arrays: Map<string, string> }, block: string | undefined): string | undefined {
  for (const [key, items] of whole.arrays) if (items === block) return key;
  return undefined;
}

/**
 * Derives the update-kind table of the `session/update` union from the schema: each known tag,
 * its body definition, its ID field (a required `…Id` property typed by an `…Id` definition), and
 * for a chunk — a body keyed like another kind whose `content` is one block where the other has an
 * array of the same blocks — the kind it is a chunk of and the property it appends to. `x-chunk-of`
 * on a chunk's definition names the whole kind explicitly, and `x-appends-to` the whole kind's
 * property when the shapes do not say it (a terminal's output is text, not blocks); without them
 * the protocol's naming (`<kind>_chunk`) decides between structurally equal candidates, and a chunk
 * with no whole kind has `chunkOf: null`. A whole kind records its chunk kind, and whether it can
 * clear the appended property alone (it requires nothing but its tag and ID).
 */
export function updateKindTable(model: SchemaModel): UpdateKindTable | undefined {
  const method = model.methods.find((m) => m.name === UPDATE_METHOD);
  if (method === undefined) return undefined;
  const defs = new Map(model.definitions.map((d) => [d.name, d]));
  const params = defs.get(method.params);
  const updateRef = params ? flatten(defs, params.schema).properties.get('update')?.$ref : undefined;
  const unionName = defNameOfRef(updateRef);
  const union: DiscriminatedUnionModel | undefined = model.unions.find((u) => u.name === unionName);
  if (union === undefined) {
    throw new SchemaError([
      {
        file: model.source,
        pointer: `/x-methods/${UPDATE_METHOD.replace('/', '~1')}`,
        message: `${UPDATE_METHOD} params must have an "update" that references a discriminated union`,
      },
    ]);
  }

  const shaped = union.variants.map((variant) => {
    const definition = defs.get(variant.definition)!;
    const { properties, required } = flatten(defs, definition.schema);
    return {
      variant,
      definition,
      properties,
      required,
      idField: variant.kind === 'known' ? idFieldOf(properties, required) : null,
      single: singleContent(properties),
      arrays: arrays(properties),
      explicitChunkOf: definition.schema['x-chunk-of'],
      explicitAppendsTo: definition.schema['x-appends-to'],
    };
  });

  const chunks = new Map<(typeof shaped)[number], { whole: (typeof shaped)[number]; field: string }>();
  for (const entry of shaped) {
    if (entry.idField === null) continue;
    const explicit = typeof entry.explicitChunkOf === 'string' ? entry.explicitChunkOf : undefined;
    const field = typeof entry.explicitAppendsTo === 'string' ? entry.explicitAppendsTo : undefined;
    const keyed = shaped.filter((other) => other !== entry && other.idField === entry.idField);
    if (explicit !== undefined) {
      const whole = keyed.find((c) => c.variant.tagValue === explicit);
      const appended = whole === undefined ? undefined : (field ?? arrayOf(whole, entry.single));
      if (whole === undefined || appended === undefined || !whole.properties.has(appended)) {
        throw new SchemaError([
          {
            file: model.source,
            pointer: entry.definition.pointer,
            message: `x-chunk-of names "${explicit}", which is not an update kind carrying ${entry.idField} and an array of the same content blocks (or the property x-appends-to names)`,
          },
        ]);
      }
      chunks.set(entry, { whole, field: appended });
      continue;
    }
    if (entry.single === undefined) continue;
    const candidates = keyed.filter((c) => arrayOf(c, entry.single) !== undefined);
    const whole =
      candidates.find((c) => `${c.variant.tagValue}_chunk` === entry.variant.tagValue) ??
      (candidates.length === 1 ? candidates[0] : undefined);
    if (whole !== undefined) chunks.set(entry, { whole, field: arrayOf(whole, entry.single)! });
  }

  const rows: UpdateKindRow[] = shaped.map((entry) => {
    const asChunk = chunks.get(entry);
    const asWhole = [...chunks].find(([, c]) => c.whole === entry);
    const appendsTo = asChunk?.field ?? asWhole?.[1].field ?? null;
    const clearsAlone =
      asWhole !== undefined &&
      [...entry.required].every((key) => key === union.tag || key === entry.idField || key === appendsTo);
    return {
      kind: entry.variant.tagValue,
      definition: entry.variant.definition,
      idField: entry.idField,
      chunkOf: asChunk?.whole.variant.tagValue ?? null,
      chunk: asWhole?.[0].variant.tagValue ?? null,
      appendsTo,
      clearsAlone,
      description: entry.definition.description,
    };
  });
  return { union: union.name, tag: union.tag, rows };
}

/** `UPDATE_KIND_TAG`, `UPDATE_KINDS` and the `UpdateKind` type. */
function addKindList(file: SourceFile, table: UpdateKindTable): void {
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [{ description: `The property of a ${table.union} that names its kind.` }],
    declarations: [{ name: 'UPDATE_KIND_TAG', initializer: quote(table.tag) }],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      {
        description: `Every update kind the schema defines for ${UPDATE_METHOD}, in schema order (extension kinds, starting with \`_\`, are not listed).`,
      },
    ],
    declarations: [
      {
        name: 'UPDATE_KINDS',
        initializer: (writer) => {
          writer.write('[');
          writer.indent(() => {
            for (const row of table.rows) writer.writeLine(`${quote(row.kind)},`);
          });
          writer.write('] as const');
        },
      },
    ],
  });
  file.addTypeAlias({
    name: 'UpdateKind',
    isExported: true,
    docs: [{ description: `A known ${UPDATE_METHOD} kind.` }],
    type: '(typeof UPDATE_KINDS)[number]',
  });
}

/** The `UpdateKindInfo` interface: one row of the table, documented field by field. */
function addKindInfo(file: SourceFile): void {
  file.addInterface({
    name: 'UpdateKindInfo',
    isExported: true,
    docs: [{ description: 'What the schema says about one update kind.' }],
    properties: [
      { name: 'kind', isReadonly: true, type: 'UpdateKind', docs: ['The tag value.'] },
      {
        name: 'definition',
        isReadonly: true,
        type: 'DefinitionName',
        docs: ['Definition of the update body.'],
      },
      {
        name: 'idField',
        isReadonly: true,
        type: 'string | null',
        docs: ['The property naming the entity the update is about (`messageId`, `toolCallId`), or null.'],
      },
      {
        name: 'chunkOf',
        isReadonly: true,
        type: 'UpdateKind | null',
        docs: [
          'For a chunk (one piece appended to an entity by ID): the kind carrying the whole value; else null.',
        ],
      },
      {
        name: 'chunk',
        isReadonly: true,
        type: 'UpdateKind | null',
        docs: ['For a kind that chunks append to: the chunk kind; else null.'],
      },
      {
        name: 'appendsTo',
        isReadonly: true,
        type: 'string | null',
        docs: [
          "For a chunk and the kind it belongs to: the whole kind's property the chunks append to (`content`, `output`, `summary`); else null.",
        ],
      },
      {
        name: 'clearsAlone',
        isReadonly: true,
        type: 'boolean',
        docs: [
          'For a kind that chunks append to: an update carrying only its tag, its ID and `null` for `appendsTo` is valid (what a replay sends to start the entity empty); else false.',
        ],
      },
    ],
  });
}

/** `UPDATE_KIND_TABLE`: every kind's row, checked against `UpdateKindInfo` by `satisfies`. */
function addKindTable(file: SourceFile, table: UpdateKindTable): void {
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [{ description: 'The update-kind table, by kind.' }],
    declarations: [
      {
        name: 'UPDATE_KIND_TABLE',
        initializer: (writer) => {
          writer.inlineBlock(() => {
            for (const row of table.rows) {
              writer.writeLine(`/** ${docText(row.description)} */`);
              writer.write(`${row.kind}: `).inlineBlock(() => {
                writer.writeLine(`kind: ${quote(row.kind)},`);
                writer.writeLine(`definition: ${quote(row.definition)},`);
                writer.writeLine(`idField: ${row.idField === null ? 'null' : quote(row.idField)},`);
                writer.writeLine(`chunkOf: ${row.chunkOf === null ? 'null' : quote(row.chunkOf)},`);
                writer.writeLine(`chunk: ${row.chunk === null ? 'null' : quote(row.chunk)},`);
                writer.writeLine(`appendsTo: ${row.appendsTo === null ? 'null' : quote(row.appendsTo)},`);
                writer.writeLine(`clearsAlone: ${row.clearsAlone},`);
              });
              writer.write(',').newLine();
            }
          });
          writer.write(
            ' as const satisfies { readonly [K in UpdateKind]: UpdateKindInfo & { readonly kind: K } }',
          );
        },
      },
    ],
  });
}

/**
 * The types derived from the table (`UpdateOfKind`, the chunk kinds, `UpdateKindKeyedBy`) and the
 * `isKnownUpdateKind` guard.
 */
function addKindTypes(file: SourceFile, table: UpdateKindTable): void {
  file.addInterface({
    name: 'UpdateOfKind',
    isExported: true,
    docs: [{ description: 'The body type of each known update kind.' }],
    properties: table.rows.map((row) => ({
      name: row.kind,
      type: row.definition,
    })),
  });
  file.addTypeAlias({
    name: 'ChunkUpdateKind',
    isExported: true,
    docs: [
      { description: 'The kinds that append one content block to an entity another kind carries whole.' },
    ],
    type: "{ [K in UpdateKind]: (typeof UPDATE_KIND_TABLE)[K]['chunkOf'] extends null ? never : K }[UpdateKind]",
  });
  file.addTypeAlias({
    name: 'ChunkedUpdateKind',
    isExported: true,
    docs: [{ description: 'The kinds whose content chunks extend: the targets of `chunkOf`.' }],
    type: "(typeof UPDATE_KIND_TABLE)[ChunkUpdateKind]['chunkOf']",
  });
  file.addTypeAlias({
    name: 'UpdateKindKeyedBy',
    isExported: true,
    typeParameters: [{ name: 'F', constraint: 'string' }],
    docs: [
      {
        description:
          'The kinds whose updates are about an entity named by the property `F` (`messageId`, `toolCallId`…).',
      },
    ],
    type: "{ [K in UpdateKind]: (typeof UPDATE_KIND_TABLE)[K]['idField'] extends F ? K : never }[UpdateKind]",
  });
  file.addFunction({
    name: 'isKnownUpdateKind',
    isExported: true,
    docs: [
      {
        description:
          'True when `kind` is an update kind this schema defines (a newer peer may send others; they are not errors).',
      },
    ],
    parameters: [{ name: 'kind', type: 'string' }],
    returnType: 'kind is UpdateKind',
    statements: 'return Object.hasOwn(UPDATE_KIND_TABLE, kind);',
  });
}

/**
 * Emits `update-kinds.ts`: the known kinds of the `session/update` union, a table of their ID
 * field and chunk-of relation, the body type of each kind, and a guard for known kinds. Code
 * that keeps a `Record<UpdateKind, …>` or switches exhaustively over `UpdateKind` stops compiling
 * when the schema gains a kind it does not handle.
 */
export function emitUpdateKinds(model: SchemaModel): EmittedFile[] {
  const table = updateKindTable(model);
  if (table === undefined) return [];
  const project = createProject();
  const file = project.createSourceFile('update-kinds.ts');
  const bodies = [...new Set(table.rows.map((r) => r.definition))];
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: './types.js',
    namedImports: ['DefinitionName', ...bodies].sort(),
  });
  addKindList(file, table);
  addKindInfo(file);
  addKindTable(file, table);
  addKindTypes(file, table);
  return [{ path: 'update-kinds.ts', contents: printSourceFile(generatedHeader(model), file) }];
}
