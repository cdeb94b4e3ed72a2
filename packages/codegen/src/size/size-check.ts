import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Node, Project, type SourceFile } from 'ts-morph';

/** The largest hand-written source file and function the size check lets through, in lines. */
export interface SizeLimits {
  readonly fileLines: number;
  readonly functionLines: number;
}

/** The project's limits: a file a reader can hold, a function a reader can follow. */
export const SIZE_LIMITS: SizeLimits = { fileLines: 600, functionLines: 150 };

/**
 * A file (and optionally one function in it) let through over the limits, and why. `path` is
 * relative to the repository root, with `/`; `function` is a name as {@link SizeViolation} gives it.
 */
export interface SizeException {
  readonly path: string;
  readonly function?: string;
  readonly why: string;
}

/** A file or function over its limit. */
export interface SizeViolation {
  readonly kind: 'file' | 'function';
  /** Relative to the root, with `/`. */
  readonly path: string;
  /** The function's name (`Class.method`, `outer > inner`, `(anonymous)`): only for functions. */
  readonly function?: string;
  /** 1-based line where it starts. */
  readonly line: number;
  readonly lines: number;
  readonly limit: number;
}

/** What a size check found. */
export interface SizeReport {
  /** Over a limit and not excepted: these fail the check. */
  readonly violations: readonly SizeViolation[];
  /** Over a limit and excepted. */
  readonly excepted: readonly SizeViolation[];
  /** Exceptions that no longer match anything over a limit: remove them. */
  readonly stale: readonly SizeException[];
  /** How many files were read. */
  readonly files: number;
}

/** Where hand-written sources live, relative to the root: each workspace's `src`, and `scripts`. */
const SOURCE_ROOTS = ['packages/*/src', 'apps/*/src', 'scripts'];
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;
/** Never read: dependencies, build output, and what codegen writes (`src/generated/`). */
const SKIPPED = new Set(['node_modules', 'dist', '.astro', '.turbo', 'generated']);

function* walk(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries.sort()) {
    if (SKIPPED.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

/** The hand-written source files under `root`. */
export function handWrittenSources(root: string): string[] {
  const files: string[] = [];
  for (const pattern of SOURCE_ROOTS) {
    const [top, star, rest] = pattern.split('/');
    if (star === '*' && rest !== undefined) {
      let packages: string[];
      try {
        packages = readdirSync(join(root, top!)).sort();
      } catch {
        continue;
      }
      for (const name of packages) files.push(...walk(join(root, top!, name, rest)));
    } else files.push(...walk(join(root, pattern)));
  }
  return files;
}

/** Lines a node spans, from its first token to its last. */
function spanOf(node: Node): number {
  return node.getEndLineNumber() - node.getStartLineNumber() + 1;
}

/** A readable name for a function-like node: `Class.method`, a variable's or property's name, or `(anonymous)`. */
function nameOf(node: Node): string {
  if (Node.isConstructorDeclaration(node)) return `${classNameOf(node)}.constructor`;
  if (
    Node.isMethodDeclaration(node) ||
    Node.isGetAccessorDeclaration(node) ||
    Node.isSetAccessorDeclaration(node)
  ) {
    const owner = node.getParent();
    const prefix =
      Node.isClassDeclaration(owner) || Node.isClassExpression(owner) ? `${classNameOf(node)}.` : '';
    return `${prefix}${node.getName()}`;
  }
  if (Node.isFunctionDeclaration(node)) return node.getName() ?? '(anonymous)';
  const parent = node.getParent();
  if (
    Node.isVariableDeclaration(parent) ||
    Node.isPropertyAssignment(parent) ||
    Node.isPropertyDeclaration(parent)
  )
    return parent.getName();
  if (Node.isFunctionExpression(node) && node.getName() !== undefined) return node.getName()!;
  return '(anonymous)';
}

function classNameOf(node: Node): string {
  const owner = node.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
  return owner !== undefined && (Node.isClassDeclaration(owner) || Node.isClassExpression(owner))
    ? (owner.getName() ?? '(class)')
    : '(class)';
}

function isFunctionLike(node: Node): boolean {
  return (
    Node.isFunctionDeclaration(node) ||
    Node.isFunctionExpression(node) ||
    Node.isArrowFunction(node) ||
    Node.isMethodDeclaration(node) ||
    Node.isConstructorDeclaration(node) ||
    Node.isGetAccessorDeclaration(node) ||
    Node.isSetAccessorDeclaration(node)
  );
}

/** The files and functions of one source file over the limits. */
function measure(file: SourceFile, path: string, limits: SizeLimits): SizeViolation[] {
  const found: SizeViolation[] = [];
  const lines = file.getEndLineNumber();
  if (lines > limits.fileLines) found.push({ kind: 'file', path, line: 1, lines, limit: limits.fileLines });
  const visit = (node: Node, outer: string | null): void => {
    let scope = outer;
    if (isFunctionLike(node)) {
      const name = outer === null ? nameOf(node) : `${outer} > ${nameOf(node)}`;
      const span = spanOf(node);
      if (span > limits.functionLines)
        found.push({
          kind: 'function',
          path,
          function: name,
          line: node.getStartLineNumber(),
          lines: span,
          limit: limits.functionLines,
        });
      scope = name;
    }
    node.forEachChild((child) => visit(child, scope));
  };
  visit(file, null);
  return found;
}

function matches(exception: SizeException, violation: SizeViolation): boolean {
  if (exception.path !== violation.path) return false;
  if (exception.function === undefined) return true;
  return violation.kind === 'function' && violation.function === exception.function;
}

/**
 * Measures every hand-written source file under `root` (see {@link handWrittenSources}; generated
 * code excluded) against `limits`. A violation an exception matches (its path, and its function
 * when it names one) is excepted; an exception that matches none is stale.
 */
export function checkSizes(
  root: string,
  exceptions: readonly SizeException[],
  limits: SizeLimits = SIZE_LIMITS,
): SizeReport {
  const project = new Project({
    useInMemoryFileSystem: false,
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    compilerOptions: { allowJs: true },
  });
  const files = handWrittenSources(root);
  const found: SizeViolation[] = [];
  for (const absolute of files) {
    const path = relative(root, absolute).split(sep).join('/');
    const file = project.addSourceFileAtPath(absolute);
    found.push(...measure(file, path, limits));
    project.removeSourceFile(file);
  }
  const violations = found.filter((v) => !exceptions.some((e) => matches(e, v)));
  const excepted = found.filter((v) => exceptions.some((e) => matches(e, v)));
  const stale = exceptions.filter((e) => !found.some((v) => matches(e, v)));
  return { violations, excepted, stale, files: files.length };
}

/** One line per violation: `path:line  function  N lines (limit L)`. */
export function formatViolation(violation: SizeViolation): string {
  const what = violation.kind === 'file' ? 'file' : `function ${violation.function}`;
  return `${violation.path}:${violation.line}  ${what}: ${violation.lines} lines (limit ${violation.limit})`;
}
