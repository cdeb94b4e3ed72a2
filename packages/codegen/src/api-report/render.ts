import { ts } from 'ts-morph';
import type { ApiEntry } from './entries.js';

/** One exported name of an entry point, as the report shows it. */
export interface ApiExport {
  readonly name: string;
  /** The declaration(s) behind the name, printed without comments, one per overload or merge. */
  readonly text: string;
  /** False when no declaration behind the name carries a TSDoc comment. */
  readonly documented: boolean;
}

/** Everything an entry point exports, sorted by name. */
export interface ApiSurface {
  readonly entry: ApiEntry;
  readonly exports: readonly ApiExport[];
  /** `export *` statements in the entry file: each hides which names the entry point publishes. */
  readonly wildcards: readonly string[];
}

const PRINTER = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/**
 * Reads the built declaration files of `entries` with the TypeScript checker and lists each
 * entry's exported names with their declarations: what a consumer of the published package sees.
 */
export function collectSurfaces(entries: readonly ApiEntry[]): ApiSurface[] {
  const program = ts.createProgram({
    rootNames: entries.map((entry) => entry.typesFile),
    options: {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    },
  });
  const checker = program.getTypeChecker();
  return entries.map((entry) => {
    const file = program.getSourceFile(entry.typesFile);
    if (file === undefined) throw new Error(`${entry.typesFile} is missing: build the package first`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    const symbols = moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol);
    return { entry, exports: describeAll(checker, symbols, 0), wildcards: wildcardExports(file) };
  });
}

function wildcardExports(file: ts.SourceFile): string[] {
  return file.statements
    .filter(
      (statement): statement is ts.ExportDeclaration =>
        ts.isExportDeclaration(statement) &&
        (statement.exportClause === undefined || ts.isNamespaceExport(statement.exportClause)),
    )
    .map((statement) => PRINTER.printNode(ts.EmitHint.Unspecified, statement, file));
}

function describeAll(checker: ts.TypeChecker, symbols: readonly ts.Symbol[], depth: number): ApiExport[] {
  return symbols
    .map((symbol) => describe(checker, symbol, depth))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function describe(checker: ts.TypeChecker, exported: ts.Symbol, depth: number): ApiExport {
  const name = exported.getName();
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const documented = aliasChain(checker, exported).some(hasDoc) || hasDoc(symbol);
  const declarations = symbol.getDeclarations() ?? [];
  const namespaceModule = declarations.find(ts.isSourceFile);
  if (namespaceModule !== undefined) {
    // `export * as name from './module.js'`: list the module's exports inside the namespace.
    const members = describeAll(checker, checker.getExportsOfModule(symbol), depth + 1);
    const body = members.map((member) => indent(member.text)).join('\n');
    return { name, text: `namespace ${name} {\n${body}\n}`, documented };
  }
  const texts = declarations.map((declaration) => printDeclaration(declaration));
  const localName = symbol.getName();
  const prefix = localName !== name && localName !== 'default' ? `/* exported as ${name} */ ` : '';
  return { name, text: prefix + texts.join('\n'), documented };
}

/** The symbol and every alias it re-exports through, nearest first: a doc on any of them counts. */
function aliasChain(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol[] {
  const chain = [symbol];
  let current = symbol;
  while (current.flags & ts.SymbolFlags.Alias && chain.length < 32) {
    const next = checker.getImmediateAliasedSymbol(current);
    if (next === undefined || chain.includes(next)) break;
    chain.push(next);
    current = next;
  }
  return chain;
}

function hasDoc(symbol: ts.Symbol): boolean {
  for (const declaration of symbol.getDeclarations() ?? []) {
    if (ts.isSourceFile(declaration)) continue;
    const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
    if (ts.getJSDocCommentsAndTags(node).length > 0) return true;
    if (
      ts.isExportSpecifier(declaration) &&
      (leadingDoc(declaration) || leadingDoc(declaration.parent.parent))
    ) {
      return true;
    }
    // `/** … */ export * as name from '…'`: the comment sits on the export declaration.
    if (ts.isNamespaceExport(declaration) && leadingDoc(declaration.parent)) return true;
  }
  return false;
}

function leadingDoc(node: ts.Node): boolean {
  const source = node.getSourceFile().getFullText();
  const ranges = ts.getLeadingCommentRanges(source, node.getFullStart()) ?? [];
  return ranges.some((range) => source.startsWith('/**', range.pos));
}

function printDeclaration(declaration: ts.Declaration): string {
  const source = declaration.getSourceFile();
  if (ts.isVariableDeclaration(declaration)) {
    const list = declaration.parent;
    const keyword = list.flags & ts.NodeFlags.Const ? 'const' : list.flags & ts.NodeFlags.Let ? 'let' : 'var';
    return `${keyword} ${PRINTER.printNode(ts.EmitHint.Unspecified, declaration, source)};`;
  }
  const node = ts.isClassDeclaration(declaration) ? withoutPrivateMembers(declaration) : declaration;
  const text = PRINTER.printNode(ts.EmitHint.Unspecified, node, source);
  return text.replace(/^(export\s+)?(default\s+)?(declare\s+)?/, '');
}

function withoutPrivateMembers(declaration: ts.ClassDeclaration): ts.ClassDeclaration {
  const members = declaration.members.filter((member) => {
    const privateModifier = ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Private;
    const hashName = member.name !== undefined && ts.isPrivateIdentifier(member.name);
    return privateModifier === 0 && !hashName;
  });
  return ts.factory.updateClassDeclaration(
    declaration,
    declaration.modifiers,
    declaration.name,
    declaration.typeParameters,
    declaration.heritageClauses,
    members,
  );
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `    ${line}`))
    .join('\n');
}

/** The report file for one entry point: a header, the counts, and every export in one `ts` block. */
export function renderReport(packageName: string, surface: ApiSurface): string {
  const undocumented = surface.exports.filter((item) => !item.documented);
  const lines = [
    `# API report: \`${packageName}\` — entry \`${surface.entry.subpath}\``,
    '',
    '<!-- Written by `npm run api:update` (acp-kit-codegen api-report). Do not edit by hand: `npm run check`',
    '     fails when the built surface differs from this file, so a surface change is a reviewed diff. -->',
    '',
    `${surface.exports.length} exported name(s), ${undocumented.length} without TSDoc.`,
    '',
    '```ts',
  ];
  for (const item of surface.exports) {
    lines.push(item.documented ? `// ${item.name}` : `// ${item.name} (undocumented)`);
    lines.push(item.text, '');
  }
  if (surface.exports.length > 0) lines.pop();
  lines.push('```', '');
  return lines.join('\n');
}
