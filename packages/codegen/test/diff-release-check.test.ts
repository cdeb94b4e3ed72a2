import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkRelease,
  insertReleaseNotes,
  releaseNotes,
  writeReleaseNotes,
} from '../src/diff/release-check.js';
import { SCHEMA_PACKAGES, readSchemaSource } from '../src/diff/schema-source.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
}

function write(repo: string, path: string, content: unknown): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(
    join(repo, path),
    typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`,
  );
}

/** A temporary copy of the repository's layout: the real v2 and v1 schemas, both packages released at `version`. */
function releasedRepo(version: string, { tag = true } = {}): string {
  const repo = mkdtempSync(join(tmpdir(), 'acp-kit-release-check-'));
  dirs.push(repo);
  git(repo, 'init', '-q', '-b', 'main');
  for (const file of ['schema/v2/schema.json', 'schema/v1/schema.json'])
    write(repo, file, readFileSync(join(ROOT, file), 'utf8'));
  write(repo, 'packages/schema/package.json', { name: '@acp-kit/schema', version });
  write(repo, 'packages/v1-compat/package.json', { name: '@acp-kit/v1-compat', version });
  write(repo, 'packages/sdk/package.json', { name: '@acp-kit/sdk', version });
  write(repo, 'packages/sdk/src/index.ts', 'export const x = 1;\n');
  write(repo, '.changeset/config.json', {});
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', `Version packages ${version}`);
  if (tag) {
    git(repo, 'tag', `@acp-kit/schema@${version}`);
    git(repo, 'tag', `@acp-kit/v1-compat@${version}`);
  }
  return repo;
}

/** The deliberate breaking edit: a new required field in `session/prompt`'s params (old clients do not send it). */
function breakPrompt(repo: string): void {
  const path = join(repo, 'schema/v2/schema.json');
  const schema = JSON.parse(readFileSync(path, 'utf8'));
  schema.$defs.PromptRequest.properties.priority = { description: 'How urgent.', type: 'integer' };
  schema.$defs.PromptRequest.required.push('priority');
  writeFileSync(path, `${JSON.stringify(schema, null, 2)}\n`);
}

function changeset(repo: string, name: string, bumps: Record<string, string>): void {
  const lines = Object.entries(bumps).map(([pkg, bump]) => `"${pkg}": ${bump}`);
  write(repo, `.changeset/${name}.md`, `---\n${lines.join('\n')}\n---\n\nA change.\n`);
}

describe('release check', () => {
  it('passes with no schema change and no changeset', () => {
    const check = checkRelease(releasedRepo('0.3.0'));
    expect(check.ok).toBe(true);
    expect(check.packages.map((p) => [p.name, p.required])).toEqual([
      ['@acp-kit/schema', 'none'],
      ['@acp-kit/v1-compat', 'none'],
    ]);
  });

  it('at 0.x a breaking edit with a patch changeset fails, naming the change; minor passes', () => {
    const repo = releasedRepo('0.3.0');
    breakPrompt(repo);
    changeset(repo, 'role', { '@acp-kit/schema': 'patch' });
    const check = checkRelease(repo);
    expect(check.ok).toBe(false);
    const schema = check.packages.find((p) => p.name === '@acp-kit/schema')!;
    expect(schema).toMatchObject({ required: 'minor', pending: 'patch', ok: false });
    expect(schema.because).toContain(
      'PromptRequest #/$defs/PromptRequest/properties/priority: new required field priority: old senders do not send it',
    );
    changeset(repo, 'role', { '@acp-kit/schema': 'minor' });
    expect(checkRelease(repo).ok).toBe(true);
  });

  it('from 1.0.0 a breaking edit with a minor changeset fails through the CLI, with the reason', () => {
    const repo = releasedRepo('1.2.0');
    breakPrompt(repo);
    changeset(repo, 'role', { '@acp-kit/schema': 'minor' });
    const run = spawnSync(process.execPath, [TSX, CLI, 'release-check', '--root', repo], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      '@acp-kit/schema: requires major, pending changesets give minor — NOT ENOUGH',
    );
    expect(run.stderr).toContain(
      'requires major because of: breaking PromptRequest #/$defs/PromptRequest/properties/priority',
    );
    changeset(repo, 'role', { '@acp-kit/schema': 'major' });
    expect(spawnSync(process.execPath, [TSX, CLI, 'release-check', '--root', repo]).status).toBe(0);
  });

  it('without a tag, the baseline is the schema at the commit that set the version', () => {
    const repo = releasedRepo('0.3.0', { tag: false });
    breakPrompt(repo);
    git(repo, 'commit', '-qam', 'schema: system role');
    changeset(repo, 'role', { '@acp-kit/schema': 'patch' });
    const check = checkRelease(repo);
    expect(check.packages.find((p) => p.name === '@acp-kit/schema')).toMatchObject({
      required: 'minor',
      ok: false,
    });
  });

  it('a package that re-exports the schema types must be bumped as much', () => {
    const repo = releasedRepo('0.3.0');
    // The re-export is file content for the temporary repository (built from the package table, not an import here).
    write(repo, 'packages/sdk/src/index.ts', `export type { Role } from '${SCHEMA_PACKAGES[0]!.name}';\n`);
    breakPrompt(repo);
    changeset(repo, 'role', { '@acp-kit/schema': 'minor', '@acp-kit/sdk': 'patch' });
    const check = checkRelease(repo);
    expect(check.packages.find((p) => p.name === '@acp-kit/sdk')).toMatchObject({
      schemaPackage: '@acp-kit/schema',
      required: 'minor',
      pending: 'patch',
      ok: false,
    });
  });

  it('version 0.0.0 without a tag was never released: a first release needs only some changeset', () => {
    const repo = releasedRepo('0.0.0', { tag: false });
    const check = checkRelease(repo);
    expect(check.reports.every((r) => r.firstRelease)).toBe(true);
    expect(check.packages.map((p) => [p.required, p.ok])).toEqual([
      ['patch', false],
      ['patch', false],
    ]);
    changeset(repo, 'first', { '@acp-kit/schema': 'minor', '@acp-kit/v1-compat': 'minor' });
    expect(checkRelease(repo).ok).toBe(true);
  });

  it('reads `<package>@<version>` and `git:<ref>:<path>` sources from the repository', () => {
    const repo = releasedRepo('0.3.0');
    breakPrompt(repo);
    const released = readSchemaSource('@acp-kit/schema@0.3.0', repo);
    expect(released.label).toContain('tag @acp-kit/schema@0.3.0');
    const atHead = readSchemaSource('git:HEAD:schema/v2/schema.json', repo);
    const defs = atHead.schema.$defs as Record<string, { properties: Record<string, unknown> }>;
    expect(defs.PromptRequest!.properties.priority).toBeUndefined();
    expect(() => readSchemaSource('@acp-kit/schema@9.9.9', repo)).toThrow(/no tag @acp-kit\/schema@9.9.9/);
  });

  it('release notes go under the version heading of the changelog', () => {
    const repo = releasedRepo('0.3.0');
    breakPrompt(repo);
    const entry = checkRelease(repo).reports[0]!;
    const changelog = insertReleaseNotes(
      '# @acp-kit/schema\n\n## 0.4.0\n\n### Minor Changes\n\n- x\n',
      '0.4.0',
      releaseNotes(entry),
    );
    expect(changelog).toContain('## 0.4.0\n\n### Schema changes\n\n`@acp-kit/schema@0.3.0');
    expect(changelog).toContain(
      '| PromptRequest | `/$defs/PromptRequest/properties/priority` | client → agent | old senders (client) |',
    );
  });
});

describe('release notes after changeset version', () => {
  it('write the report into the new CHANGELOG section of a schema package whose version changed', () => {
    const repo = releasedRepo('0.3.0');
    breakPrompt(repo);
    // What `changeset version` leaves uncommitted: the new version and its changelog section.
    write(repo, 'packages/schema/package.json', { name: '@acp-kit/schema', version: '0.4.0' });
    write(
      repo,
      'packages/schema/CHANGELOG.md',
      '# @acp-kit/schema\n\n## 0.4.0\n\n### Minor Changes\n\n- x\n',
    );
    expect(writeReleaseNotes(repo)).toEqual([join(repo, 'packages/schema/CHANGELOG.md')]);
    const changelog = readFileSync(join(repo, 'packages/schema/CHANGELOG.md'), 'utf8');
    expect(changelog).toContain('## 0.4.0\n\n### Schema changes\n\n`@acp-kit/schema@0.3.0');
    expect(changelog).toContain(
      '`/$defs/PromptRequest/properties/priority` | client → agent | old senders (client) |',
    );
  });
});
