import { Node } from 'ts-morph';
import type { SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { createProject } from './ts-project.js';

/** Options of {@link emitEntryIndex}. */
export interface EntryIndexOptions {
  /** Runtime module (relative to the output directory) whose `ValidationIssue`/`ValidationResult` types are re-exported. */
  readonly runtimeModule: string;
  /** The package documentation the entry point opens with. */
  readonly packageDoc: string;
}

/** Generated modules whose exports are types only, re-exported with `export type`. */
const TYPE_ONLY_MODULES = new Set(['types.ts', 'official-names.ts']);
/** Generated modules the entry point leaves out: the compiled validators behind `validate.ts`. */
const INTERNAL_MODULES = new Set(['validators.ts', 'checks.ts']);

/**
 * Emits `index.ts`: the package entry point, naming every export of the other generated modules
 * one by one (no `export *`), so that the built surface — and its API report — lists each name.
 * A name two modules both export is an error here, where `export *` would drop it silently.
 */
export function emitEntryIndex(
  model: SchemaModel,
  files: readonly EmittedFile[],
  options: EntryIndexOptions,
): EmittedFile[] {
  const project = createProject();
  const modules = files
    .filter(
      (file) => file.path.endsWith('.ts') && !file.path.includes('/') && !INTERNAL_MODULES.has(file.path),
    )
    .sort((a, b) => a.path.localeCompare(b.path));
  for (const file of files) project.createSourceFile(file.path, file.contents);
  const blocks: string[] = [];
  const owner = new Map<string, string>();
  for (const module of modules) {
    const source = project.getSourceFileOrThrow(module.path);
    const exported = [...source.getExportedDeclarations()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (exported.length === 0) continue;
    for (const [name] of exported) {
      const previous = owner.get(name);
      if (previous !== undefined) {
        throw new Error(`generated modules ${previous} and ${module.path} both export ${name}`);
      }
      owner.set(name, module.path);
    }
    const typeOnlyModule = TYPE_ONLY_MODULES.has(module.path);
    const names = exported.map(([name, declarations]) =>
      !typeOnlyModule && declarations.every((node) => isTypeDeclaration(node)) ? `type ${name}` : name,
    );
    blocks.push(exportBlock(names, `./${module.path.replace(/\.ts$/, '.js')}`, typeOnlyModule));
  }
  blocks.push(exportBlock(['ValidationIssue', 'ValidationResult'], options.runtimeModule, true));
  const doc = options.packageDoc
    .split('\n')
    .map((line) => (line === '' ? ' *' : ` * ${line}`))
    .join('\n');
  const contents = [generatedHeader(model), `/**\n${doc}\n *\n * @packageDocumentation\n */`, ...blocks].join(
    '\n',
  );
  return [{ path: 'index.ts', contents }];
}

/** One `export { … } from '…';` statement, a name a line, so a new name is a one-line diff. */
function exportBlock(names: readonly string[], from: string, typeOnly: boolean): string {
  return `export ${typeOnly ? 'type ' : ''}{\n${names.map((name) => `  ${name},`).join('\n')}\n} from '${from}';\n`;
}

function isTypeDeclaration(node: Node): boolean {
  return Node.isInterfaceDeclaration(node) || Node.isTypeAliasDeclaration(node);
}
