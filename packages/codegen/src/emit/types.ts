import { compile } from 'json-schema-to-typescript';
import {
  type InterfaceDeclarationStructure,
  type SourceFile,
  StructureKind,
  type TypeAliasDeclarationStructure,
} from 'ts-morph';
import type { JsonObject } from '../json.js';
import type { DefinitionModel, SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { stripAnnotations } from './strip-annotations.js';
import { createProject, docText, printSourceFile, quote } from './ts-project.js';

/** Name of the throwaway root declaration json-schema-to-typescript insists on producing. */
const ROOT_NAME = 'AcpKitCodegenRoot';

/** The TypeScript type of an extension value: any string starting with an underscore. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: this is TypeScript source text for a template literal type.
export const EXTENSION_STRING_TYPE = '`_${string}`';

/** Prepares the schema copy handed to json-schema-to-typescript: no docs (we add our own), open enums as plain strings (reshaped afterwards). */
function schemaForDeclarations(model: SchemaModel): JsonObject {
  const defs: JsonObject = {};
  const openEnums = new Set(model.openEnums.map((e) => e.name));
  for (const def of model.definitions) {
    defs[def.name] = openEnums.has(def.name) ? { type: 'string' } : stripAnnotations(def.schema);
  }
  return { title: ROOT_NAME, type: 'object', $defs: defs };
}

type Declaration = InterfaceDeclarationStructure | TypeAliasDeclarationStructure;

function unquote(name: string): string {
  return /^['"].*['"]$/.test(name) ? (JSON.parse(`"${name.slice(1, -1)}"`) as string) : name;
}

/** Reads the draft's declarations as structures (no docs), keyed by name, in draft order. */
function draftDeclarations(file: SourceFile): Map<string, Declaration> {
  const out = new Map<string, Declaration>();
  for (const iface of file.getInterfaces()) {
    const structure = iface.getStructure();
    structure.docs = [];
    for (const prop of structure.properties ?? []) prop.docs = [];
    out.set(structure.name, structure);
  }
  for (const alias of file.getTypeAliases()) {
    const structure = alias.getStructure();
    structure.docs = [];
    out.set(structure.name, structure);
  }
  return out;
}

function documentDefinition(declaration: Declaration, def: DefinitionModel): void {
  if (def.description !== '') declaration.docs = [{ description: docText(def.description) }];
  if (declaration.kind !== StructureKind.Interface) return;
  const descriptions = new Map(def.properties.map((p) => [p.name, p.description]));
  for (const prop of declaration.properties ?? []) {
    const description = descriptions.get(unquote(prop.name));
    if (description !== undefined && description !== '') prop.docs = [{ description: docText(description) }];
  }
}

function literalUnion(values: readonly string[]): string {
  return [...values.map(quote), EXTENSION_STRING_TYPE].join(' | ');
}

/**
 * Emits `types.ts`: one exported type per definition, shaped as an AST after
 * json-schema-to-typescript drafts the declarations.
 */
export async function emitTypes(model: SchemaModel): Promise<EmittedFile[]> {
  const draft = await compile(schemaForDeclarations(model) as Parameters<typeof compile>[0], ROOT_NAME, {
    bannerComment: '',
    additionalProperties: false,
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    format: false,
    strictIndexSignatures: false,
  });
  const project = createProject();
  const declarations = draftDeclarations(project.createSourceFile('draft.ts', draft));
  declarations.delete(ROOT_NAME);
  const take = (name: string): Declaration => {
    const found = declarations.get(name);
    if (found === undefined) {
      throw new Error(`types emitter: json-schema-to-typescript produced no declaration named ${name}`);
    }
    return found;
  };

  for (const openEnum of model.openEnums) {
    const alias = take(openEnum.name);
    if (alias.kind !== StructureKind.TypeAlias)
      throw new Error(`types emitter: open enum ${openEnum.name} is not a type alias`);
    alias.type = literalUnion(openEnum.known);
  }
  for (const union of model.unions) {
    if (union.extension === undefined) continue;
    const iface = take(union.extension);
    const tagProperty =
      iface.kind === StructureKind.Interface
        ? iface.properties?.find((p) => unquote(p.name) === union.tag)
        : undefined;
    if (tagProperty === undefined) {
      throw new Error(`types emitter: extension variant ${union.extension} has no property ${union.tag}`);
    }
    tagProperty.type = EXTENSION_STRING_TYPE;
  }

  const statements: Declaration[] = [];
  for (const def of model.definitions) {
    const declaration = take(def.name);
    documentDefinition(declaration, def);
    declaration.isExported = true;
    statements.push(declaration);
    declarations.delete(def.name);
  }
  // Helper declarations json-schema-to-typescript invented for inline schemas come after the definitions.
  statements.push(...declarations.values());
  const file = project.createSourceFile('types.ts', { statements });
  file.addInterface({
    name: 'Definitions',
    isExported: true,
    docs: [{ description: 'Maps every definition name of the schema to its TypeScript type.' }],
    properties: model.definitions.map((d) => ({ name: d.name, type: d.name })),
  });
  file.addTypeAlias({
    name: 'DefinitionName',
    isExported: true,
    docs: [{ description: 'The name of a schema definition (a key of `$defs`).' }],
    type: 'keyof Definitions',
  });
  return [{ path: 'types.ts', contents: printSourceFile(generatedHeader(model), file) }];
}
