import { compile } from 'json-schema-to-typescript';
import {
  type InterfaceDeclarationStructure,
  type Project,
  type SourceFile,
  StructureKind,
  type TypeAliasDeclarationStructure,
  VariableDeclarationKind,
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

/** Name of the emitted alias for a value an open enum does not know (any string). */
export const UNKNOWN_VALUE_TYPE = 'UnknownValue';

/** Name of the emitted generic that brands the unknown branch of an open union. */
export const UNKNOWN_VARIANT_TYPE = 'UnknownVariant';

/** Name of the type-only symbol that brands the unknown branch of an open union. */
export const UNKNOWN_VARIANT_BRAND = 'unknownVariant';

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

function literalUnion(values: readonly string[], acceptsUnknown: boolean): string {
  return [...values.map(quote), acceptsUnknown ? UNKNOWN_VALUE_TYPE : EXTENSION_STRING_TYPE].join(' | ');
}

/**
 * The unknown branch of an open union as a type alias of two shapes: `_`-prefixed tags
 * (implementation-defined, written like any other variant) and any other tag, branded with
 * {@link UNKNOWN_VARIANT_BRAND} so that an object literal with a known tag or a misspelt one does
 * not silently type-check as "unknown".
 */
function openBranchAlias(project: Project, drafted: Declaration, tag: string): TypeAliasDeclarationStructure {
  if (drafted.kind !== StructureKind.Interface) {
    throw new Error(`types emitter: unknown branch ${drafted.name} is not an interface`);
  }
  const scratch = project.createSourceFile(`scratch-${drafted.name}.ts`, '', { overwrite: true });
  const shape = (tagType: string): string => {
    const iface = scratch.addInterface({
      ...drafted,
      name: 'Shape',
      isExported: false,
      properties: (drafted.properties ?? []).map((p) =>
        unquote(p.name) === tag ? { ...p, type: tagType } : p,
      ),
    });
    const text = iface.getText();
    iface.remove();
    return text.slice(text.indexOf('{'));
  };
  const alias: TypeAliasDeclarationStructure = {
    kind: StructureKind.TypeAlias,
    name: drafted.name,
    type: `${shape(EXTENSION_STRING_TYPE)} | ${UNKNOWN_VARIANT_TYPE}<${shape('string')}>`,
  };
  project.removeSourceFile(scratch);
  return alias;
}

/** Declarations that open enums and open unions refer to; emitted only when something uses them. */
function addUnknownDeclarations(file: SourceFile, model: SchemaModel): void {
  const unknownEnums = model.openEnums.some((e) => e.acceptsUnknown);
  const unknownUnions = model.unions.some((u) => u.extension !== undefined && u.acceptsUnknown);
  if (unknownUnions) {
    file.insertTypeAlias(0, {
      name: UNKNOWN_VARIANT_TYPE,
      isExported: true,
      typeParameters: ['T'],
      docs: [
        {
          description:
            'A variant of an open union whose tag this schema does not know (from a later protocol version, or implementation-defined). Receivers keep it; the brand stops object literals with known or misspelt tags from type-checking as one, so building such a value takes an explicit assertion.',
        },
      ],
      type: `T & { readonly [${UNKNOWN_VARIANT_BRAND}]: true }`,
    });
    file.insertVariableStatement(0, {
      declarationKind: VariableDeclarationKind.Const,
      hasDeclareKeyword: true,
      docs: [
        {
          description:
            'Brands the unknown branch of an open union. It exists only in the types: values received from the wire carry no such property.',
        },
      ],
      declarations: [{ name: UNKNOWN_VARIANT_BRAND, type: 'unique symbol' }],
    });
  }
  if (unknownEnums) {
    file.insertTypeAlias(unknownUnions ? 2 : 0, {
      name: UNKNOWN_VALUE_TYPE,
      isExported: true,
      docs: [
        {
          description:
            'A value of an open enum that this schema does not list: implementation-defined (starting with `_`) or defined by a later protocol version. Receivers keep such values instead of rejecting the message. Written as `string & {}` so editors still offer the known values.',
        },
      ],
      type: 'string & {}',
    });
  }
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
    alias.type = literalUnion(openEnum.known, openEnum.acceptsUnknown);
  }
  const unknownBranches = new Map<string, string>();
  for (const union of model.unions) {
    if (union.extension === undefined) continue;
    const iface = take(union.extension);
    const tagProperty =
      iface.kind === StructureKind.Interface
        ? iface.properties?.find((p) => unquote(p.name) === union.tag)
        : undefined;
    if (iface.kind !== StructureKind.Interface || tagProperty === undefined) {
      throw new Error(`types emitter: extension variant ${union.extension} has no property ${union.tag}`);
    }
    tagProperty.type = EXTENSION_STRING_TYPE;
    if (union.acceptsUnknown) unknownBranches.set(union.extension, union.tag);
  }

  const statements: Declaration[] = [];
  for (const def of model.definitions) {
    const drafted = take(def.name);
    const tag = unknownBranches.get(def.name);
    const declaration = tag === undefined ? drafted : openBranchAlias(project, drafted, tag);
    documentDefinition(declaration, def);
    declaration.isExported = true;
    statements.push(declaration);
    declarations.delete(def.name);
  }
  // Helper declarations json-schema-to-typescript invented for inline schemas come after the definitions.
  statements.push(...declarations.values());
  const file = project.createSourceFile('types.ts', { statements });
  addUnknownDeclarations(file, model);
  for (const union of model.unions) {
    if (union.extension === undefined || !union.acceptsUnknown) continue;
    file.addTypeAlias({
      name: `Known${union.name}`,
      isExported: true,
      docs: [
        {
          description: `A {@link ${union.name}} whose ${union.tag} this schema knows (or that starts with \`_\`): the union without its {@link ${UNKNOWN_VARIANT_TYPE}} branch. Values built by an implementation use this type, so a switch on ${union.tag} narrows and an object literal is checked against its variant.`,
        },
      ],
      type: `Exclude<${union.name}, { readonly [${UNKNOWN_VARIANT_BRAND}]: true }>`,
    });
  }
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
