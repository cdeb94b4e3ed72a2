import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type JsonObject, isJsonObject } from '../json.js';

/** A package whose published contents are generated from one schema file of the repository. */
export interface SchemaPackage {
  readonly name: string;
  /** The package's folder, relative to the repository root. */
  readonly dir: string;
  /** The schema it is generated from, relative to the repository root. */
  readonly schema: string;
}

/** The packages generated from a schema: `@acp-kit/schema` (v2) and `@acp-kit/v1-compat` (v1 bindings). */
export const SCHEMA_PACKAGES: readonly SchemaPackage[] = [
  { name: '@acp-kit/schema', dir: 'packages/schema', schema: 'schema/v2/schema.json' },
  { name: '@acp-kit/v1-compat', dir: 'packages/v1-compat', schema: 'schema/v1/schema.json' },
];

/** A schema read from somewhere, with how it was found. */
export interface SchemaSource {
  readonly label: string;
  readonly schema: JsonObject;
  /** Set when the schema file did not exist there (the comparison starts from an empty schema). */
  readonly missing?: boolean;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 << 20,
    });
  } catch {
    return undefined;
  }
}

/** The repository root containing `cwd`. */
export function repoRoot(cwd: string): string {
  return git(cwd, ['rev-parse', '--show-toplevel'])?.trim() ?? cwd;
}

function parse(label: string, text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${label}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isJsonObject(value)) throw new Error(`${label}: not a JSON object`);
  return value;
}

/** A file at a git revision; `missing` when the revision exists but the file does not. */
export function schemaAtRef(root: string, ref: string, path: string): SchemaSource {
  const label = `${ref}:${path}`;
  if (git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]) === undefined)
    throw new Error(`git revision ${ref} not found in ${root}`);
  const text = git(root, ['show', `${ref}:${path}`]);
  if (text === undefined) return { label, schema: {}, missing: true };
  return { label, schema: parse(label, text) };
}

/**
 * Where version `version` of a schema package was released: the tag changesets creates
 * (`<name>@<version>`) if it exists, else the oldest commit whose `package.json` has that version
 * (the commit that set it, e.g. "Version packages"). The published tarball ships no schema JSON (only
 * the generated code), so the repository is the record.
 */
export function releaseRef(root: string, pkg: SchemaPackage, version: string): string {
  const tag = `${pkg.name}@${version}`;
  if (git(root, ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`]) !== undefined)
    return `refs/tags/${tag}`;
  const commits = git(root, [
    'log',
    '--format=%H',
    `-S"version": "${version}"`,
    '--',
    `${pkg.dir}/package.json`,
  ]);
  const oldest = commits?.trim().split('\n').filter(Boolean).at(-1);
  if (oldest === undefined)
    throw new Error(`no tag ${tag} and no commit that set ${pkg.dir}/package.json to ${version}`);
  return oldest;
}

/**
 * The schema a package was released with. `0.0.0` without a tag is changesets' starting version,
 * which `changeset version` has never replaced: nothing was released, so the baseline is empty.
 */
export function releasedSchema(root: string, pkg: SchemaPackage, version: string): SchemaSource {
  if (
    version === '0.0.0' &&
    git(root, ['rev-parse', '--verify', '--quiet', `refs/tags/${pkg.name}@0.0.0`]) === undefined
  )
    return { label: `${pkg.name}@0.0.0 (never released)`, schema: {}, missing: true };
  const ref = releaseRef(root, pkg, version);
  const found = schemaAtRef(root, ref, pkg.schema);
  return {
    ...found,
    label: `${pkg.name}@${version} (${ref.replace(/^refs\/tags\//, 'tag ').slice(0, 48)}:${pkg.schema})`,
  };
}

/** A package's version at `HEAD` (before uncommitted changes such as `changeset version`'s), if committed. */
export function committedVersion(root: string, pkg: SchemaPackage): string | undefined {
  const text = git(root, ['show', `HEAD:${pkg.dir}/package.json`]);
  if (text === undefined) return undefined;
  return (JSON.parse(text) as { version?: string }).version;
}

/** A package's version in the working tree. */
export function packageVersion(root: string, pkg: SchemaPackage): string {
  const json = JSON.parse(readFileSync(resolve(root, pkg.dir, 'package.json'), 'utf8')) as {
    version?: string;
  };
  return json.version ?? '0.0.0';
}

/**
 * Reads a schema named on the command line: a file path, `git:<ref>:<path>`, or
 * `<package>@<version>` for a schema package (`@acp-kit/schema@0.3.0`: the v2 schema it was released with).
 */
export function readSchemaSource(spec: string, cwd: string = process.cwd()): SchemaSource {
  if (spec.startsWith('git:')) {
    const rest = spec.slice('git:'.length);
    const colon = rest.indexOf(':');
    if (colon <= 0) throw new Error(`${spec}: expected git:<ref>:<path>`);
    return schemaAtRef(repoRoot(cwd), rest.slice(0, colon), rest.slice(colon + 1));
  }
  const pkg = SCHEMA_PACKAGES.find((p) => spec.startsWith(`${p.name}@`));
  if (pkg !== undefined) return releasedSchema(repoRoot(cwd), pkg, spec.slice(pkg.name.length + 1));
  const path = resolve(cwd, spec);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`${spec}: no such file (expected a path, git:<ref>:<path> or <package>@<version>)`);
  }
  return { label: spec, schema: parse(spec, text) };
}
