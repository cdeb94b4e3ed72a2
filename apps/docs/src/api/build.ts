import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import type { ApiItem, ApiKind, ApiMember, ApiPackage, ApiTag } from './model.ts';

/**
 * Builds the API reference from what the published packages actually ship: the `types` of every
 * entry in each package's exports map (`packages/<name>/dist/**.d.ts`, produced by the packages'
 * own builds) read with the TypeScript compiler. Nothing is listed by hand, so a new export, a
 * renamed option or a changed TSDoc line shows up on the next docs build.
 *
 * One program covers every package, so the cost is one type-check-free parse of the
 * declarations (about a second), independent of how many definitions the schema grows to.
 */

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly private?: boolean;
  readonly exports?: Record<string, string | { readonly types?: string }>;
  readonly bin?: string | Record<string, string>;
}

const SCOPE = '@acp-kit/';

/** The published packages: every `packages/*` whose package.json is not private, in folder order. */
export function publishedPackages(repoRoot: string): { dir: string; json: PackageJson }[] {
  const root = join(repoRoot, 'packages');
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, d.name, 'package.json')))
    .map((d) => ({
      dir: join(root, d.name),
      json: JSON.parse(readFileSync(join(root, d.name, 'package.json'), 'utf8')) as PackageJson,
    }))
    .filter((p) => p.json.private !== true && p.json.name.startsWith(SCOPE))
    .sort((a, b) => a.json.name.localeCompare(b.json.name));
}

/** `@acp-kit/sdk` → `sdk`. */
export function packageSlug(name: string): string {
  return name.slice(SCOPE.length);
}

/** The API page of a package. */
export function packageHref(name: string): string {
  return `/api/${packageSlug(name)}/`;
}

function typesEntries(pkg: { dir: string; json: PackageJson }): { specifier: string; file: string }[] {
  const out: { specifier: string; file: string }[] = [];
  for (const [key, target] of Object.entries(pkg.json.exports ?? {})) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (types === undefined || !types.endsWith('.d.ts')) continue;
    const specifier = key === '.' ? pkg.json.name : `${pkg.json.name}/${key.slice(2)}`;
    const file = join(pkg.dir, types);
    if (!existsSync(file)) {
      throw new Error(
        `${specifier}: ${types} is missing. Build the package before the docs (npm run build); a new package ` +
          'also goes into the dependencies of apps/docs/package.json so that Turbo builds it first.',
      );
    }
    out.push({ specifier, file });
  }
  return out;
}

function text(parts: readonly ts.SymbolDisplayPart[] | undefined): string {
  return ts.displayPartsToString(parts ? [...parts] : []).trim();
}

function tagsOf(tags: readonly ts.JSDocTagInfo[]): ApiTag[] {
  return tags.map((t) => ({ name: t.name, text: text(t.text) }));
}

function firstSentence(doc: string): string {
  const paragraph =
    doc
      .split(/\n\s*\n/)[0]
      ?.replace(/\s+/g, ' ')
      .trim() ?? '';
  const match = /^(.+?[.!?])(\s|$)/.exec(paragraph);
  return match?.[1] ?? paragraph;
}

function isInternal(node: ts.Node): boolean {
  return ts.getJSDocTags(node).some((t) => t.tagName.text === 'internal');
}

/** The declaration's text without `export` / `declare`, so it reads as the shape a user imports. */
function declarationText(node: ts.Node, sf: ts.SourceFile): string {
  return node
    .getText(sf)
    .replace(/^export\s+/, '')
    .replace(/^declare\s+/, '');
}

function memberName(member: ts.ClassElement | ts.TypeElement, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(member) || ts.isConstructSignatureDeclaration(member)) return 'constructor';
  if (ts.isCallSignatureDeclaration(member)) return '(call)';
  if (ts.isIndexSignatureDeclaration(member)) return '[index]';
  return member.name?.getText(sf) ?? '';
}

function isHidden(member: ts.ClassElement | ts.TypeElement): boolean {
  if (member.name !== undefined && ts.isPrivateIdentifier(member.name)) return true;
  const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
  if (
    modifiers.some(
      (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
    )
  ) {
    return true;
  }
  return isInternal(member);
}

function membersOf(
  decl: ts.ClassDeclaration | ts.InterfaceDeclaration,
  sf: ts.SourceFile,
  checker: ts.TypeChecker,
): ApiMember[] {
  const out: ApiMember[] = [];
  for (const member of decl.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>) {
    if (isHidden(member)) continue;
    let doc = '';
    let tags: ApiTag[] = [];
    const symbol = member.name === undefined ? undefined : checker.getSymbolAtLocation(member.name);
    if (symbol !== undefined) {
      doc = text(symbol.getDocumentationComment(checker));
      tags = tagsOf(symbol.getJsDocTags(checker));
    } else if (ts.isConstructorDeclaration(member) || ts.isCallSignatureDeclaration(member)) {
      const signature = checker.getSignatureFromDeclaration(member);
      doc = text(signature?.getDocumentationComment(checker));
      tags = tagsOf(signature?.getJsDocTags() ?? []);
    }
    out.push({ name: memberName(member, sf), signature: declarationText(member, sf), doc, tags });
  }
  return out;
}

function kindOf(symbol: ts.Symbol, decl: ts.Declaration): ApiKind {
  if (ts.isSourceFile(decl) || ts.isModuleDeclaration(decl)) return 'namespace';
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Variable) return 'variable';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  return 'type';
}

/** A class or interface: its heading line, with the body left to the member list. */
function headerText(decl: ts.ClassDeclaration | ts.InterfaceDeclaration, sf: ts.SourceFile): string {
  const head = sf.text.slice(decl.getStart(sf), decl.members.pos).trim();
  return `${head.replace(/^export\s+/, '').replace(/^declare\s+/, '')} … }`;
}

/** The export's signature and members from its declaration(s). */
function describeDeclarations(
  symbol: ts.Symbol,
  checker: ts.TypeChecker,
): { signature: string; members: ApiMember[] } {
  const signatures: string[] = [];
  const members: ApiMember[] = [];
  for (const decl of symbol.declarations ?? []) {
    const sf = decl.getSourceFile();
    if (ts.isSourceFile(decl)) {
      // A namespace export (`export * as V1 from …`): its members are the module's exports.
      for (const inner of checker.getExportsOfModule(symbol)) {
        const target = inner.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(inner) : inner;
        const innerDecl = target.declarations?.[0];
        if (innerDecl === undefined) continue;
        const full = declarationText(
          ts.isVariableDeclaration(innerDecl) ? innerDecl.parent.parent : innerDecl,
          innerDecl.getSourceFile(),
        );
        members.push({
          name: inner.name,
          signature: full.length > 400 ? `${full.slice(0, 400)} …` : full,
          doc: text(target.getDocumentationComment(checker)),
          tags: [],
        });
      }
      continue;
    }
    if (ts.isClassDeclaration(decl) || ts.isInterfaceDeclaration(decl)) {
      signatures.push(headerText(decl, sf));
      members.push(...membersOf(decl, sf, checker));
    } else if (ts.isVariableDeclaration(decl)) {
      signatures.push(declarationText(decl.parent.parent, sf));
    } else {
      signatures.push(declarationText(decl, sf));
    }
  }
  return { signature: signatures.join('\n'), members };
}

/**
 * The comment of a re-export (`/** … *\/ export * as ns from …`): a namespace's module has no
 * comment of its own, so its documentation is the one written on the export statement.
 */
function exportStatementDoc(alias: ts.Symbol): string {
  const decl = alias.declarations?.[0];
  const statement = decl === undefined ? undefined : ts.findAncestor(decl, ts.isExportDeclaration);
  if (statement === undefined) return '';
  const sf = statement.getSourceFile();
  const ranges = ts.getLeadingCommentRanges(sf.text, statement.getFullStart()) ?? [];
  const last = ranges.at(-1);
  if (last === undefined) return '';
  const comment = sf.text.slice(last.pos, last.end);
  if (!comment.startsWith('/**')) return '';
  return comment
    .replace(/^\/\*\*\s?|\s*\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

/** `…/dist/generated/compat/converters.d.ts` → `converters`; undefined when hand-written. */
function generatedModuleOf(fileName: string): string | undefined {
  if (!/[/\\]generated[/\\]/.test(fileName)) return undefined;
  return basename(fileName).replace(/\.d\.ts$/, '');
}

export interface BuildApiOptions {
  readonly repoRoot: string;
  /** Definition names per schema version, so generated schema types link to their reference page. */
  readonly schemaDefinitions: Readonly<Record<string, ReadonlySet<string>>>;
}

/** Reads every published package's declarations and returns the API reference model. */
export function buildApiReference({ repoRoot, schemaDefinitions }: BuildApiOptions): ApiPackage[] {
  const packages = publishedPackages(repoRoot).map((pkg) => ({ pkg, entries: typesEntries(pkg) }));
  const program = ts.createProgram({
    rootNames: packages.flatMap((p) => p.entries.map((e) => e.file)),
    options: {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
  });
  const checker = program.getTypeChecker();

  return packages.map(({ pkg, entries }) => {
    const slug = packageSlug(pkg.json.name);
    const items = new Map<string, { symbol: ts.Symbol; alias: ts.Symbol; entryPoints: string[] }>();
    const entryPoints = entries.map(({ specifier, file }) => {
      const sf = program.getSourceFile(file);
      const moduleSymbol = sf === undefined ? undefined : checker.getSymbolAtLocation(sf);
      if (moduleSymbol === undefined) throw new Error(`${specifier}: cannot read ${file}`);
      const names: string[] = [];
      for (const exported of checker.getExportsOfModule(moduleSymbol)) {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        names.push(exported.name);
        const known = items.get(exported.name);
        if (known === undefined)
          items.set(exported.name, { symbol, alias: exported, entryPoints: [specifier] });
        else known.entryPoints.push(specifier);
      }
      return { specifier, names: names.sort((a, b) => a.localeCompare(b)) };
    });

    const generatedModules = new Set<string>();
    const apiItems: ApiItem[] = [...items.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, { symbol, alias, entryPoints: from }]) => {
        const decl = symbol.declarations?.[0];
        if (decl === undefined) throw new Error(`${pkg.json.name}: export ${name} has no declaration`);
        const kind = kindOf(symbol, decl);
        const doc = text(symbol.getDocumentationComment(checker)) || exportStatementDoc(alias);
        const { signature, members } = describeDeclarations(symbol, checker);
        const module = ts.isSourceFile(decl) ? undefined : generatedModuleOf(decl.getSourceFile().fileName);
        const schemaVersion = pkg.json.name === '@acp-kit/schema' ? 'v2' : undefined;
        const definition =
          module === 'types' &&
          schemaVersion !== undefined &&
          schemaDefinitions[schemaVersion]?.has(name) === true
            ? { version: schemaVersion, name }
            : undefined;
        let href = `/api/${slug}/${name}/`;
        if (definition !== undefined)
          href = `/reference/${definition.version}/${definition.name}/#typescript`;
        else if (module !== undefined) {
          generatedModules.add(module);
          href = `/api/${slug}/${module}/#${name}`;
        }
        return {
          packageName: pkg.json.name,
          name,
          kind,
          summary: firstSentence(doc),
          doc,
          tags: tagsOf(symbol.getJsDocTags(checker)),
          signature,
          members,
          entryPoints: from,
          href,
          ...(module === undefined || definition !== undefined ? {} : { generatedModule: module }),
          ...(definition === undefined ? {} : { schemaDefinition: definition }),
        };
      });

    const bin = pkg.json.bin;
    return {
      name: pkg.json.name,
      slug,
      version: pkg.json.version,
      description: pkg.json.description ?? '',
      entryPoints,
      items: apiItems,
      generatedModules: [...generatedModules].sort(),
      bins: bin === undefined ? [] : typeof bin === 'string' ? [slug] : Object.keys(bin),
    };
  });
}
