#!/usr/bin/env node
/**
 * Keeps the dependencies between workspace packages one way, also at test time: a package's
 * sources, tests and stress runs may not reach a workspace package that depends on it
 * (directly or transitively, through dependencies, optional, peer or dev dependencies) — neither
 * by importing `@acp-kit/<name>` nor by a relative path into that package's directory
 * (`../../cli/src/…`, `new URL('../../../cli/dist/bin.js', …)`). Such a reach is a cycle: the
 * package's tests would need the package that is built on it. Only module references count:
 * `from '…'`, `import('…')`, `require('…')` and `new URL('…', import.meta.url)`; a name in a
 * comment does not. Benches are not scanned: the SDK's resume bench loads the optional SQLite
 * store dynamically, as the CLI does (turbo builds it first for that bench). Prints each reach as
 * file:line and exits 1; run by `npm run lint`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORKSPACE_DIRS = ['packages', 'apps'];
const SCANNED = ['src', 'test', 'stress'];
const SOURCE = /\.(?:[cm]?[jt]s|tsx|astro)$/;

/** Every workspace package: name, directory, and the workspace packages it declares. */
function workspacePackages() {
  const packages = new Map();
  for (const parent of WORKSPACE_DIRS) {
    let entries = [];
    try {
      entries = readdirSync(join(ROOT, parent));
    } catch {
      continue;
    }
    for (const entry of entries) {
      const dir = join(ROOT, parent, entry);
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      const declared = Object.keys({
        ...manifest.dependencies,
        ...manifest.optionalDependencies,
        ...manifest.peerDependencies,
        ...manifest.devDependencies,
      });
      packages.set(manifest.name, { name: manifest.name, dir, declared });
    }
  }
  for (const pkg of packages.values()) pkg.declared = pkg.declared.filter((name) => packages.has(name));
  return packages;
}

/** The workspace packages `name` depends on, transitively. */
function closure(packages, name, seen = new Set()) {
  for (const dep of packages.get(name)?.declared ?? []) {
    if (seen.has(dep)) continue;
    seen.add(dep);
    closure(packages, dep, seen);
  }
  return seen;
}

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'generated' || entry.startsWith('.'))
      continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (SOURCE.test(entry)) yield path;
  }
}

/** Module references to a package (`@acp-kit/x…`) or a relative path (`../…`), in import contexts. */
const QUOTED =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bnew\s+URL\s*\(\s*)(['"])((?:@acp-kit\/[a-z0-9-]+|\.\.?\/)[^'"\s]*)\1/g;

const packages = workspacePackages();
const byDir = new Map([...packages.values()].map((pkg) => [pkg.dir, pkg]));
const problems = [];
for (const pkg of packages.values()) {
  // Packages that depend on this one: reaching any of them from here closes a cycle.
  const dependents = new Set(
    [...packages.keys()].filter((other) => other !== pkg.name && closure(packages, other).has(pkg.name)),
  );
  if (dependents.size === 0) continue;
  for (const sub of SCANNED) {
    for (const file of files(join(pkg.dir, sub))) {
      const lines = readFileSync(file, 'utf8').split('\n');
      for (const [index, line] of lines.entries()) {
        if (/^\s*(?:\*|\/\/)/.test(line)) continue; // a comment line names, it does not load
        for (const match of line.matchAll(QUOTED)) {
          const target = match[2];
          let reached;
          if (target.startsWith('@acp-kit/')) {
            reached = target.split('/').slice(0, 2).join('/');
          } else {
            const absolute = resolve(dirname(file), target);
            const owner = [...byDir.keys()].find((dir) => absolute === dir || absolute.startsWith(dir + sep));
            reached = owner === undefined ? undefined : byDir.get(owner).name;
          }
          if (reached !== undefined && dependents.has(reached)) {
            problems.push(
              `${relative(ROOT, file)}:${index + 1}: ${pkg.name} reaches ${reached} (${target}), which depends on ${pkg.name}`,
            );
          }
        }
      }
    }
  }
}

if (problems.length > 0) {
  console.error('Test-time dependency cycles between workspace packages:');
  for (const problem of problems) console.error(`  ${problem}`);
  console.error('Move the test into the dependent package, or export what it needs from a testing entry.');
  process.exit(1);
}
console.log(`package dependencies are one way (${packages.size} workspace packages, sources and tests)`);
