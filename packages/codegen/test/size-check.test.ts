import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkSizes } from '../src/size/size-check.js';
import { runSizeCheck } from '../src/size/run-size-check.js';

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
  vi.restoreAllMocks();
});

/** A throwaway repository with the given files (path → text). */
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'size-check-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A file of exactly `n` lines of declarations. */
const lines = (n: number): string =>
  Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n');
/** A function declaration spanning exactly `n` lines. */
const fn = (name: string, n: number): string =>
  [
    `export function ${name}(): number {`,
    ...Array.from({ length: n - 3 }, (_, i) => `  const a${i} = ${i};`),
    '  return 0;',
    '}',
  ].join('\n');

describe('the size check', () => {
  it('fails a hand-written file over 600 lines and passes one of 600', () => {
    const root = repo({ 'packages/a/src/big.ts': lines(601), 'packages/a/src/fine.ts': lines(600) });
    const report = checkSizes(root, []);
    expect(report.violations.map((v) => [v.kind, v.path, v.lines])).toEqual([
      ['file', 'packages/a/src/big.ts', 601],
    ]);
  });

  it('fails a function over 150 lines, naming it, and passes one of 150', () => {
    const root = repo({
      'packages/a/src/f.ts': `${fn('long', 151)}\n${fn('fits', 150)}\nexport class C {\n  m(): void {\n${'    void 0;\n'.repeat(150)}  }\n}\n`,
    });
    expect(checkSizes(root, []).violations.map((v) => [v.function, v.line, v.lines])).toEqual([
      ['long', 1, 151],
      ['C.m', 303, 152],
    ]);
  });

  it('does not measure generated code, tests or dependencies', () => {
    const root = repo({
      'packages/a/src/generated/types.ts': lines(5000),
      'packages/a/test/big.test.ts': lines(700),
      'packages/a/node_modules/x/index.js': lines(700),
      'packages/a/src/types.d.ts': lines(700),
    });
    const report = checkSizes(root, []);
    expect(report.violations).toEqual([]);
    expect(report.files).toBe(0);
  });

  it('lets an excepted file or function through and names an exception that matches nothing', () => {
    const root = repo({ 'apps/d/src/big.mjs': lines(700), 'scripts/tool.mjs': fn('long', 200) });
    const report = checkSizes(root, [
      { path: 'apps/d/src/big.mjs', why: 'being split' },
      { path: 'scripts/tool.mjs', function: 'long', why: 'a list' },
      { path: 'scripts/gone.mjs', why: 'split already' },
    ]);
    expect(report.violations).toEqual([]);
    expect(report.excepted.map((v) => v.path)).toEqual(['apps/d/src/big.mjs', 'scripts/tool.mjs']);
    expect(report.stale.map((e) => e.path)).toEqual(['scripts/gone.mjs']);
  });

  it('exits 1 from the command line on an oversized file, 0 once it is excepted', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const root = repo({ 'packages/a/src/big.ts': lines(601) });
    expect(runSizeCheck(['--root', root])).toBe(1);
    writeFileSync(
      join(root, 'exceptions.json'),
      JSON.stringify({ exceptions: [{ path: 'packages/a/src/big.ts', why: 'being split' }] }),
    );
    expect(runSizeCheck(['--root', root, '--exceptions', join(root, 'exceptions.json')])).toBe(0);
  });

  it('refuses an exception without a reason', () => {
    const root = repo({ 'x.json': JSON.stringify({ exceptions: [{ path: 'a.ts', why: ' ' }] }) });
    expect(() => runSizeCheck(['--root', root, '--exceptions', join(root, 'x.json')])).toThrow(
      /non-empty "why"/,
    );
  });
});
