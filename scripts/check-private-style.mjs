#!/usr/bin/env node
/**
 * Keeps one private-member style: ES private names (`#field`, `#method()`), which are private at
 * run time too, not TypeScript's `private` modifier, which is erased and leaves the member
 * reachable (and enumerable) in the published JavaScript. Flags every `private` on a property,
 * method, accessor or constructor parameter property in the workspaces' TypeScript sources,
 * tests, benches and stress runs. A `private constructor` is allowed: it has no ES equivalent
 * (it keeps `new` to the class's own static factories). Prints each as file:line and exits 1;
 * run by `npm run lint`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORKSPACE_DIRS = ['packages', 'apps'];
const SCANNED = ['src', 'test', 'bench', 'stress'];
const SOURCE = /\.(?:[cm]?ts|tsx)$/;
const SKIPPED = new Set(['node_modules', 'dist', '.astro', '.turbo']);

/** Every TypeScript file under `dir`, skipping build output and dependencies. */
function* sourceFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (SKIPPED.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

/** The `private` modifiers in one file, as `file:line  member`. */
function privateModifiers(path) {
  const text = readFileSync(path, 'utf8');
  if (!text.includes('private')) return [];
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    const isMember =
      ts.isPropertyDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      (ts.isParameter(node) && ts.isConstructorDeclaration(node.parent));
    if (isMember && node.modifiers?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      found.push(
        `${relative(ROOT, path)}:${line + 1}  private ${node.name.getText(file)} → use #${node.name.getText(file)}`,
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const found = [];
for (const parent of WORKSPACE_DIRS) {
  let packages = [];
  try {
    packages = readdirSync(join(ROOT, parent));
  } catch {
    continue;
  }
  for (const pkg of packages) {
    for (const scanned of SCANNED) {
      for (const path of sourceFiles(join(ROOT, parent, pkg, scanned))) found.push(...privateModifiers(path));
    }
  }
}
for (const path of sourceFiles(join(ROOT, 'scripts'))) found.push(...privateModifiers(path));

if (found.length > 0) {
  console.error(`TypeScript \`private\` members found; this repository uses ES private names (#member):`);
  for (const line of found) console.error(`  ${line}`);
  process.exit(1);
}
