#!/usr/bin/env node
// `npm run pack [-- <package…>] [--out <dir>]`: installable tarballs of every publishable package,
// for installing from a checkout before (or instead of) the registry.
//
// Writes one `npm pack` tarball per package into one folder (default `packs/` at the root), then
// prints the `npm install` lines that install the packages asked for (all by default; `sdk` or
// `@acp-kit/sdk` each) together with the acp-kit packages they depend on: one line for the
// libraries, as dependencies, and one `npm install -D` line for the tools (the CLI, the code
// generator) with what they need beyond the first line. Each line's tarballs go in one command:
// npm then takes `@acp-kit/schema@^0.0.0`, say, from the tarball beside the SDK's instead of looking
// it up on the registry, where it is not (the second line finds the first line's packages installed).
// Run `npm run build` first.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

/** The publishable packages of the checkout, by name. */
function publishable() {
  const packages = new Map();
  for (const folder of readdirSync(join(ROOT, 'packages'))) {
    const dir = join(ROOT, 'packages', folder);
    const manifestPath = join(dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (!manifest.private) packages.set(manifest.name, { dir, manifest });
  }
  return packages;
}

function parseArgs(argv, packages) {
  let out = join(ROOT, 'packs');
  const wanted = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out') {
      const dir = argv[++i];
      if (!dir) fail('--out needs a folder');
      out = resolve(dir);
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: npm run pack [-- <package…>] [--out <dir>]\n');
      process.exit(0);
    } else {
      const name = arg.startsWith('@') ? arg : `@acp-kit/${arg}`;
      if (!packages.has(name))
        fail(`no publishable package ${arg} (there are: ${[...packages.keys()].join(', ')})`);
      wanted.push(name);
    }
  }
  return { out, wanted: wanted.length > 0 ? wanted : [...packages.keys()] };
}

/**
 * The packages to install for `wanted`: those and, transitively, the acp-kit packages they depend
 * on (dependencies and peers; optional ones only when asked for, as npm would skip them).
 */
function closure(wanted, packages) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const { manifest } = packages.get(name);
    for (const field of ['dependencies', 'peerDependencies']) {
      for (const dependency of Object.keys(manifest[field] ?? {}))
        if (packages.has(dependency)) visit(dependency);
    }
  };
  for (const name of wanted) visit(name);
  return [...seen];
}

const packages = publishable();
const { out, wanted } = parseArgs(process.argv.slice(2), packages);
for (const [name, { dir }] of packages) {
  if (!existsSync(join(dir, 'dist')))
    fail(`${name} is not built (no ${join(dir, 'dist')}): run npm run build first`);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const tarballs = new Map();
for (const [name, { dir }] of packages) {
  const printed = execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [{ filename }] = JSON.parse(printed);
  tarballs.set(name, join(out, filename));
}
process.stdout.write(`${tarballs.size} tarballs in ${out}\n`);
/** Packages used from a shell or a build rather than imported by an app: devDependencies. */
const TOOLS = new Set(['@acp-kit/cli', '@acp-kit/codegen']);
const libraries = closure(
  wanted.filter((name) => !TOOLS.has(name)),
  packages,
);
const tools = closure(
  wanted.filter((name) => TOOLS.has(name)),
  packages,
).filter((name) => !libraries.includes(name));
const lines = [
  ...(libraries.length > 0 ? [`npm install ${libraries.map((name) => tarballs.get(name)).join(' ')}`] : []),
  ...(tools.length > 0 ? [`npm install -D ${tools.map((name) => tarballs.get(name)).join(' ')}`] : []),
];
process.stdout.write(`\nInstall ${wanted.join(', ')} into a project with:\n\n${lines.join('\n')}\n`);
