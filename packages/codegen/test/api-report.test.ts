import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lineDiff } from '../src/api-report/line-diff.js';
import { runApiReport } from '../src/api-report/run.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const INDEX_DTS = `/** Greets. */
export declare function greet(name: string): string;
/** A greeter. */
export declare class Greeter {
    private secret;
    readonly greeting: string;
    constructor(greeting: string);
    /** Greets someone. */
    greet(name: string): string;
}
export declare const VERSION = "1";
import * as helpers from './helpers.js';
/** Internal helpers, for adapter authors. */
export { helpers };
`;

const HELPERS_DTS = `/** Trims. */
export declare function trim(text: string): string;
`;

/** A built package on disk: package.json with two entry points and their declaration files. */
function fixturePackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-api-report-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: '@fixture/pkg',
      type: 'module',
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './helpers': { types: './dist/helpers.d.ts', default: './dist/helpers.js' },
        './schema.json': './dist/schema.json',
        './package.json': './package.json',
      },
    }),
  );
  writeFileSync(join(dir, 'dist', 'index.d.ts'), INDEX_DTS);
  writeFileSync(join(dir, 'dist', 'helpers.d.ts'), HELPERS_DTS);
  return dir;
}

function cli(dir: string, ...args: string[]) {
  return spawnSync(process.execPath, [TSX, CLI, 'api-report', '--package', dir, ...args], {
    encoding: 'utf8',
  });
}

describe('api-report', () => {
  it('writes one report per typed entry point listing every export, sorted, with its signature', () => {
    const dir = fixturePackage();
    const written = runApiReport({ packageDir: dir, check: false });
    expect(written.changed).toEqual(['api/helpers.api.md', 'api/index.api.md']);
    expect(written.counts).toEqual([
      { subpath: '.', names: 4, undocumented: 1 },
      { subpath: './helpers', names: 1, undocumented: 0 },
    ]);
    const report = readFileSync(join(dir, 'api', 'index.api.md'), 'utf8');
    const names = [...report.matchAll(/^\/\/ (\w+)/gm)].map((match) => match[1]);
    expect(names).toEqual(['Greeter', 'VERSION', 'greet', 'helpers']);
    expect(report).toContain('function greet(name: string): string;');
    expect(report).toContain('// VERSION (undocumented)');
    expect(report).toContain('namespace helpers {\n    function trim(text: string): string;\n}');
    expect(report).not.toContain('secret');
    expect(runApiReport({ packageDir: dir, check: true }).changed).toEqual([]);
  });

  it('check fails on an unreported signature change, printing the diff and the update command', () => {
    const dir = fixturePackage();
    expect(cli(dir).status).toBe(0);
    expect(cli(dir, '--check').status).toBe(0);
    writeFileSync(
      join(dir, 'dist', 'index.d.ts'),
      INDEX_DTS.replace('greet(name: string): string;', 'greet(name: string, loud?: boolean): string;'),
    );
    const run = cli(dir, '--check');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('- function greet(name: string): string;');
    expect(run.stderr).toContain('+ function greet(name: string, loud?: boolean): string;');
    expect(run.stderr).toContain('npm run api:update');
    expect(readFileSync(join(dir, 'api', 'index.api.md'), 'utf8')).toContain('greet(name: string): string;');
    expect(cli(dir).status).toBe(0);
    expect(cli(dir, '--check').status).toBe(0);
  });

  it('check fails on an added export, a removed entry point and a missing report', () => {
    const dir = fixturePackage();
    runApiReport({ packageDir: dir, check: false });
    writeFileSync(
      join(dir, 'dist', 'helpers.d.ts'),
      `${HELPERS_DTS}export declare function pad(text: string): string;\n`,
    );
    const added = cli(dir, '--check');
    expect(added.status).toBe(1);
    expect(added.stderr).toContain('+ // pad (undocumented)');
    runApiReport({ packageDir: dir, check: false });
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    delete manifest.exports['./helpers'];
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    const stale = cli(dir, '--check');
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('api/helpers.api.md reports an entry point the package no longer has');
    rmSync(join(dir, 'api', 'index.api.md'));
    expect(cli(dir, '--check').stderr).toContain('api/index.api.md is missing');
  });

  it('fails, in both modes, on an entry point that re-exports with export *', () => {
    const dir = fixturePackage();
    writeFileSync(join(dir, 'dist', 'index.d.ts'), `${INDEX_DTS}export * from './helpers.js';\n`);
    const update = cli(dir);
    expect(update.status).toBe(1);
    expect(update.stderr).toContain(
      "`export * from './helpers.js';` — name each export instead of `export *`",
    );
    expect(runApiReport({ packageDir: dir, check: true }).problems).toHaveLength(1);
  });

  it('a line diff aligns unchanged lines between separate changes', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n');
    const after = ['a', 'B', 'c', 'd', 'e', 'f', 'G', 'h'].join('\n');
    expect(lineDiff(before, after, 1)).toEqual([
      '  a',
      '- b',
      '+ B',
      '  c',
      '  …',
      '  f',
      '- g',
      '+ G',
      '  h',
    ]);
  });
});
