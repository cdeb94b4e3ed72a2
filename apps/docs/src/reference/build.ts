import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildModel, type JsonObject, loadSchema, type SchemaModel } from '@acp-kit/codegen';
import type { DefinitionEntry, DefinitionKind, ExampleEntry, MethodEntry, VersionEntry } from './model.ts';
import { constraintsOf, referencedDefinitions, typeTokens } from './type-expr.ts';

/** Schema versions the reference covers, newest first. A version appears once its schema.json exists. */
export const REFERENCE_VERSIONS = ['v2', 'v1'] as const;

/** The versions whose `schema/<version>/schema.json` exists in this checkout. */
export function availableVersions(repoRoot: string): string[] {
  return REFERENCE_VERSIONS.filter((version) => existsSync(join(repoRoot, 'schema', version, 'schema.json')));
}

/** Loads and checks one version's schema with codegen; a schema that breaks its conventions fails the build. */
export function loadVersionModel(repoRoot: string, version: string): SchemaModel {
  return buildModel(loadSchema(join(repoRoot, 'schema', version, 'schema.json')));
}

function readExamples(repoRoot: string, version: string, name: string): ExampleEntry[] {
  const dir = join(repoRoot, 'schema', version, 'examples', name);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -'.json'.length),
      file: `schema/${version}/examples/${name}/${file}`,
      text: readFileSync(join(dir, file), 'utf8').trimEnd(),
    }));
}

function kindOf(model: SchemaModel, name: string, schema: JsonObject): DefinitionKind {
  if (model.unions.some((u) => u.name === name)) return 'union';
  if (model.openEnums.some((e) => e.name === name)) return 'open-enum';
  if (Array.isArray(schema.enum)) return 'enum';
  const type = schema.type;
  if (
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    schema.properties !== undefined
  ) {
    return 'object';
  }
  return 'scalar';
}

function methodEntries(model: SchemaModel): MethodEntry[] {
  return model.methods.map((m) => ({
    name: m.name,
    direction: m.direction,
    kind: m.kind,
    params: m.params,
    ...(m.result === undefined ? {} : { result: m.result }),
    description: m.description,
    ...(m.capability === undefined
      ? {}
      : {
          capability: {
            in: m.capability.in,
            pointer: m.capability.pointer,
            description: m.capability.description,
          },
        }),
  }));
}

function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text);
  return (match?.[1] ?? text).replace(/\s+/g, ' ');
}

/** The overview of one version: its methods and a one-line index of its definitions. */
export function buildVersionEntry(model: SchemaModel, version: string): VersionEntry {
  const schema = model.schema;
  return {
    version,
    source: model.source,
    title: typeof schema.title === 'string' ? schema.title : `ACP ${version}`,
    description: typeof schema.description === 'string' ? schema.description : '',
    methods: methodEntries(model),
    definitions: model.definitions.map((d) => ({
      name: d.name,
      kind: kindOf(model, d.name, d.schema),
      summary: firstSentence(d.description),
    })),
  };
}

/** One page's data per definition of `model`, with the examples read from `schema/<version>/examples`. */
export function buildDefinitionEntries(
  model: SchemaModel,
  version: string,
  repoRoot: string,
): DefinitionEntry[] {
  const methods = methodEntries(model);
  const usedBy = new Map<string, string[]>();
  for (const def of model.definitions) {
    for (const ref of referencedDefinitions(def.schema)) {
      if (ref === def.name) continue;
      usedBy.set(ref, [...(usedBy.get(ref) ?? []), def.name]);
    }
  }
  return model.definitions.map((def) => {
    const union = model.unions.find((u) => u.name === def.name);
    const openEnum = model.openEnums.find((e) => e.name === def.name);
    const kind = kindOf(model, def.name, def.schema);
    const values =
      openEnum?.known ??
      (Array.isArray(def.schema.enum)
        ? def.schema.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
        : []);
    return {
      version,
      name: def.name,
      kind,
      description: def.description,
      type: typeTokens(def.schema),
      constraints: constraintsOf(def.schema),
      fields: def.properties.map((p) => ({
        name: p.name,
        type: typeTokens(p.schema),
        required: p.required,
        description: p.description,
        constraints: constraintsOf(p.schema),
      })),
      ...(union === undefined
        ? {}
        : {
            union: {
              tag: union.tag,
              variants: union.variants.map((v) => ({
                tagValue: v.tagValue,
                definition: v.definition,
                nested: v.kind === 'union',
              })),
              ...(union.extension === undefined ? {} : { extension: union.extension }),
            },
          }),
      values,
      methods: methods.filter((m) => m.params === def.name || m.result === def.name),
      usedBy: usedBy.get(def.name) ?? [],
      examples: readExamples(repoRoot, version, def.name),
      schemaText: JSON.stringify(def.schema, null, 2),
    };
  });
}
